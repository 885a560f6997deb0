/* The small text parsers of outside files. The first byte picks the
 * parser; the rest is the file. Parsers that take a string are called
 * directly; the ones that live inside a facts reader get the input as
 * that one file of a minimal sysroot, read by facts_gather. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "facts.h"
#include "fuzz_common.h"
#include "util.h"

/* A minimal capture around the fuzzed file: a kernel release for the
 * readers that use it, one KFD GPU node and one PCI GPU for mem_banks,
 * uevent and class. */
static const char skeleton[] =
	"=== .rocmcheck/host.ini\n[capture]\nformat = 1\n[uname]\nrelease = 6.8.0-40-generic\nmachine = x86_64\n"
	"=== etc/os-release\nID=ubuntu\nVERSION_ID=\"22.04\"\n"
	"=== sys/class/kfd/kfd/topology/nodes/1/gpu_id\n1234\n"
	"=== sys/class/kfd/kfd/topology/nodes/1/name\ngfx1100\n"
	"=== sys/class/kfd/kfd/topology/nodes/1/properties\nsimd_count 192\ngfx_target_version 110000\n"
	"vendor_id 4098\ndevice_id 29772\nlocation_id 768\ndomain 0\n"
	"=== sys/bus/pci/devices/0000:03:00.0/vendor\n0x1002\n"
	"=== sys/bus/pci/devices/0000:03:00.0/device\n0x744c\n"
	"=== sys/bus/pci/devices/0000:03:00.0/class\n0x030000\n"
	"=== sys/bus/pci/devices/0000:03:00.0/uevent\nDRIVER=amdgpu\nPCI_ID=1002:744C\nPCI_SLOT_NAME=0000:03:00.0\n"
	"=== home/alice/venv/lib/python3.10/site-packages/torch/version.py\n__version__ = '2.4.0+rocm6.1'\n"
	"=== opt/rocm-6.2.0/include/rocm-core/rocm_version.h\n#define ROCM_VERSION_MAJOR 6\n"
	"=== opt/rocm -> rocm-6.2.0\n";

/* The files read through facts_gather, by selector. */
static const char *const files[] = {
	"etc/os-release",
	"proc/version",
	"proc/cmdline",
	"proc/modules",
	"sys/class/kfd/kfd/topology/nodes/1/properties",
	"sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties",
	"sys/bus/pci/devices/0000:03:00.0/uevent",
	"sys/bus/pci/devices/0000:03:00.0/class",
	"var/lib/dkms/amdgpu/6.10.5-2109964.22.04/source/dkms.conf",
	"home/alice/venv/lib/python3.10/site-packages/torch-2.4.0+rocm6.1.dist-info/METADATA",
	"home/alice/venv/lib/python3.10/site-packages/torch/version.py",
	"opt/rocm-6.2.0/.info/version",
	"usr/local/cuda-12.4/version.json",
	"proc/driver/nvidia/version",
	"sys/module/amdgpu/version",
	"proc/cpuinfo",
};

static void direct(unsigned sel, const char *text)
{
	switch (sel % 8) {
	case 0: {
		struct os_facts os;
		memset(&os, 0, sizeof(os));
		os_release_parse(text, &os);
		free(os.path);
		free(os.id);
		free(os.id_like);
		free(os.version_id);
		free(os.version_codename);
		free(os.pretty_name);
		free(os.name);
		free(os.variant_id);
		break;
	}
	case 1: {
		struct kfd_node n;
		memset(&n, 0, sizeof(n));
		kfd_properties_parse(text, &n);
		free(n.name);
		break;
	}
	case 2: {
		char *v = NULL;
		bool open_module = false;
		if (nvidia_version_parse(text, &v, &open_module) == 0)
			FUZZ_ASSERT(v && *v, "nvidia version parsed to nothing");
		free(v);
		free(nvidia_lib_version_from_name(text));
		break;
	}
	case 3: {
		char *v = NULL;
		if (cuda_version_json_parse(text, &v) == 0)
			FUZZ_ASSERT(v, "version.json parsed to nothing");
		free(v);
		break;
	}
	case 4: {
		char *v = NULL, *bv = NULL;
		enum fw_backend b;
		torch_version_py_parse(text, &v, &b, &bv);
		free(v);
		free(bv);
		break;
	}
	case 5: {
		struct version v;
		rocm_version_header_parse(text, &v);
		version_parse(text, &v);
		break;
	}
	case 6: {
		unsigned a, b, c, d;
		kernel_release_parse(text, &a, &b, &c);
		pci_addr_parse(text, &a, &b, &c, &d);
		break;
	}
	default: {
		struct hsa_override o;
		memset(&o, 0, sizeof(o));
		hsa_override_parse(text, &o);
		FUZZ_ASSERT(!o.valid || !strncmp(o.arch, "gfx", 3), "valid override without a gfx name");
		free(o.raw);
		break;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	char *text = fuzz_str(data + 1, size - 1);
	direct(sel, text);
	if (sel & 0x80) {
		/* the same bytes as a file that a facts reader parses, in a
		 * skeleton made once: only that file changes between inputs */
		static const char *root;
		if (!root) {
			root = fuzz_fresh_dir("parsers");
			fuzz_build_tree(root, (const uint8_t *)skeleton, sizeof(skeleton) - 1);
		}
		const char *path = files[(sel & 0x7f) % ARRAY_SIZE(files)];
		fuzz_write_file(root, path, data + 1, size - 1);
		fuzz_doctor(root);
		/* back to the skeleton: its own content, or no such file */
		const char *own = NULL;
		struct strbuf hdr = STRBUF_INIT;
		strbuf_addf(&hdr, "=== %s\n", path);
		const char *at = strstr(skeleton, hdr.buf);
		if (at) {
			own = at + hdr.len;
			const char *next = strstr(own, "\n=== ");
			fuzz_write_file(root, path, (const uint8_t *)own,
					next ? (size_t)(next + 1 - own) : strlen(own));
		} else {
			char *full = xasprintf("%s/%s", root, path);
			unlink(full);
			free(full);
		}
		strbuf_release(&hdr);
	}
	free(text);
	return 0;
}
