/* facts_gather: every reader, in the order their inputs need. */
#include "facts.h"

#include <string.h>

void facts_gather(struct facts *f, struct sysroot *sr)
{
	memset(f, 0, sizeof(*f));
	f->sr = sr;
	f->rocm.active = -1;
	f->cuda.active = -1;

	if (sr->host_ini_error)
		fact_errors_add(&f->errors, "/.rocmcheck/host.ini", "%s", sr->host_ini_error);
	facts_read_os(f);
	facts_read_system(f);   /* kernel release and /proc/modules first: others use them */
	facts_read_env(f);      /* ROCM_PATH, VIRTUAL_ENV, ... for the install readers */
	facts_read_driver(f);
	facts_read_pci(f);
	facts_read_kfd(f);
	facts_read_drm(f);
	facts_read_rocm(f);
	facts_read_cuda(f);
	facts_read_python(f);
	f->kfd_dev = sysroot_device(sr, "/dev/kfd");
	facts_build_gpus(f);
}
