/* Calls through the dl_libs.h pointers under the libraries' own names.
 *
 * Include after dl_libs.h and after every other header, in the files that
 * call libarchive, libcurl, libcrypto or libdrm (never in dl_libs.c, which needs the
 * names as struct members and strings). Each name becomes an object-like
 * macro for its pointer, so `archive_read_new()` calls
 * `(dl_archive.archive_read_new)()`. Keep in step with the lists in
 * dl_libs.h. */
#ifndef ROCMCHECK_DL_USE_H
#define ROCMCHECK_DL_USE_H

#include "dl_libs.h"

#define archive_entry_filetype (dl_archive.archive_entry_filetype)
#define archive_entry_free (dl_archive.archive_entry_free)
#define archive_entry_hardlink (dl_archive.archive_entry_hardlink)
#define archive_entry_new (dl_archive.archive_entry_new)
#define archive_entry_pathname (dl_archive.archive_entry_pathname)
#define archive_entry_set_filetype (dl_archive.archive_entry_set_filetype)
#define archive_entry_set_gid (dl_archive.archive_entry_set_gid)
#define archive_entry_set_gname (dl_archive.archive_entry_set_gname)
#define archive_entry_set_mtime (dl_archive.archive_entry_set_mtime)
#define archive_entry_set_pathname (dl_archive.archive_entry_set_pathname)
#define archive_entry_set_perm (dl_archive.archive_entry_set_perm)
#define archive_entry_set_size (dl_archive.archive_entry_set_size)
#define archive_entry_set_symlink (dl_archive.archive_entry_set_symlink)
#define archive_entry_set_uid (dl_archive.archive_entry_set_uid)
#define archive_entry_set_uname (dl_archive.archive_entry_set_uname)
#define archive_entry_size (dl_archive.archive_entry_size)
#define archive_entry_size_is_set (dl_archive.archive_entry_size_is_set)
#define archive_entry_symlink (dl_archive.archive_entry_symlink)
#define archive_error_string (dl_archive.archive_error_string)
#define archive_filter_code (dl_archive.archive_filter_code)
#define archive_filter_count (dl_archive.archive_filter_count)
#define archive_format (dl_archive.archive_format)
#define archive_read_close (dl_archive.archive_read_close)
#define archive_read_data_block (dl_archive.archive_read_data_block)
#define archive_read_data_skip (dl_archive.archive_read_data_skip)
#define archive_read_free (dl_archive.archive_read_free)
#define archive_read_new (dl_archive.archive_read_new)
#define archive_read_next_header (dl_archive.archive_read_next_header)
#define archive_read_open_fd (dl_archive.archive_read_open_fd)
#define archive_read_open_memory (dl_archive.archive_read_open_memory)
#define archive_read_support_filter_gzip (dl_archive.archive_read_support_filter_gzip)
#define archive_read_support_format_tar (dl_archive.archive_read_support_format_tar)
#define archive_write_add_filter_gzip (dl_archive.archive_write_add_filter_gzip)
#define archive_write_close (dl_archive.archive_write_close)
#define archive_write_data (dl_archive.archive_write_data)
#define archive_write_data_block (dl_archive.archive_write_data_block)
#define archive_write_disk_new (dl_archive.archive_write_disk_new)
#define archive_write_disk_set_options (dl_archive.archive_write_disk_set_options)
#define archive_write_finish_entry (dl_archive.archive_write_finish_entry)
#define archive_write_free (dl_archive.archive_write_free)
#define archive_write_header (dl_archive.archive_write_header)
#define archive_write_new (dl_archive.archive_write_new)
#define archive_write_open (dl_archive.archive_write_open)
#define archive_write_set_bytes_in_last_block (dl_archive.archive_write_set_bytes_in_last_block)
#define archive_write_set_format_pax_restricted (dl_archive.archive_write_set_format_pax_restricted)

#define curl_easy_cleanup (dl_curl.curl_easy_cleanup)
/* curl.h checks their argument count with same-name function-like macros */
#undef curl_easy_getinfo
#undef curl_easy_setopt
#define curl_easy_getinfo (dl_curl.curl_easy_getinfo)
#define curl_easy_init (dl_curl.curl_easy_init)
#define curl_easy_perform (dl_curl.curl_easy_perform)
#define curl_easy_setopt (dl_curl.curl_easy_setopt)
#define curl_easy_strerror (dl_curl.curl_easy_strerror)
#define curl_global_init (dl_curl.curl_global_init)
#define curl_mime_addpart (dl_curl.curl_mime_addpart)
#define curl_mime_filedata (dl_curl.curl_mime_filedata)
#define curl_mime_filename (dl_curl.curl_mime_filename)
#define curl_mime_free (dl_curl.curl_mime_free)
#define curl_mime_init (dl_curl.curl_mime_init)
#define curl_mime_name (dl_curl.curl_mime_name)
#define curl_mime_type (dl_curl.curl_mime_type)
#define curl_multi_add_handle (dl_curl.curl_multi_add_handle)
#define curl_multi_cleanup (dl_curl.curl_multi_cleanup)
#define curl_multi_info_read (dl_curl.curl_multi_info_read)
#define curl_multi_init (dl_curl.curl_multi_init)
#define curl_multi_perform (dl_curl.curl_multi_perform)
#define curl_multi_remove_handle (dl_curl.curl_multi_remove_handle)
#define curl_multi_wait (dl_curl.curl_multi_wait)
#define curl_slist_append (dl_curl.curl_slist_append)
#define curl_slist_free_all (dl_curl.curl_slist_free_all)

#define EVP_DigestFinal_ex (dl_crypto.EVP_DigestFinal_ex)
#define EVP_DigestInit_ex (dl_crypto.EVP_DigestInit_ex)
#define EVP_DigestUpdate (dl_crypto.EVP_DigestUpdate)
#define EVP_MD_CTX_free (dl_crypto.EVP_MD_CTX_free)
#define EVP_MD_CTX_new (dl_crypto.EVP_MD_CTX_new)
#define EVP_sha256 (dl_crypto.EVP_sha256)

#define drmFreeDevices (dl_drm.drmFreeDevices)
#define drmFreeVersion (dl_drm.drmFreeVersion)
#define drmGetDevices2 (dl_drm.drmGetDevices2)
#define drmGetVersion (dl_drm.drmGetVersion)

#endif
