/* facts_gather: every reader, in the order their inputs need. */
#include "facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dev_push(struct facts *f, const char *path)
{
	const struct dev_node *d = sysroot_device(f->sr, path);
	if (!d->path)
		return;  /* the table is full: facts_read_devices says so once */
	for (size_t i = 0; i < f->ndevs; i++)
		if (f->devs[i] == d)
			return;
	f->devs = xrealloc(f->devs, (f->ndevs + 1) * sizeof(*f->devs));
	f->devs[f->ndevs++] = d;
}

void facts_read_devices(struct facts *f)
{
	size_t nv = 0, nv_pci = 0;

	for (size_t i = 0; i < f->ngpus; i++) {
		if (f->gpus[i].render_node)
			dev_push(f, f->gpus[i].render_node);
		if (f->gpus[i].vendor == VENDOR_NVIDIA)
			nv++;
	}
	/* as perm.nvidia counts them: NVIDIA GPUs, else NVIDIA PCI devices */
	for (size_t i = 0; !nv && i < f->npci; i++)
		if (f->pci[i].vendor == 0x10de)
			nv_pci++;
	if (!nv)
		nv = nv_pci;
	if (nv) {
		char path[32];
		for (size_t i = 0; i < nv && !f->sr->devs_full; i++) {
			snprintf(path, sizeof(path), "/dev/nvidia%zu", i);
			dev_push(f, path);
		}
		dev_push(f, "/dev/nvidiactl");
		dev_push(f, "/dev/nvidia-uvm");
	}
	if (f->sr->devs_full)
		facts_limit(f, "/dev", "more than %d device nodes: the rest are not judged", SYSROOT_MAX_DEVS);
}

/* The run hit a sysroot cap: say so first, under the path it stopped at,
 * so the check looking at that part reports it ahead of the readers'
 * "No buffer space available". */
static void facts_cap_error(struct facts *f)
{
	struct fact_errors one = { 0 };
	fact_errors_add(&one, f->sr->cap_path, "%s", f->sr->cap_error);
	f->errors.v = xrealloc(f->errors.v, (f->errors.n + 1) * sizeof(*f->errors.v));
	memmove(f->errors.v + 1, f->errors.v, f->errors.n * sizeof(*f->errors.v));
	f->errors.v[0] = one.v[0];
	f->errors.n++;
	free(one.v);
	strvec_push_owned(&f->limits, facts_printable(xasprintf("%s: %s", f->sr->cap_path, f->sr->cap_error)));
}

void facts_gather(struct facts *f, struct sysroot *sr)
{
	facts_init(f, sr);

	if (sr->host_ini_error)
		fact_errors_add(&f->errors, "/.rocmcheck/host.ini", "%s", sr->host_ini_error);
	facts_read_os(f);
	facts_read_system(f);   /* kernel release and /proc/modules first: others use them */
	facts_read_slurm(f);    /* the GPUs Slurm gives this node (host name from above) */
	facts_read_env(f);      /* ROCM_PATH, VIRTUAL_ENV, ... for the install readers */
	facts_read_driver(f);
	facts_read_pci(f);
	facts_read_hwmon(f);
	facts_read_health(f);
	facts_read_klog(f);     /* the lines are tied to GPUs by the PCI addresses read above */
	facts_read_kfd(f);
	facts_read_drm(f);
	facts_read_rocm(f);
	facts_read_cuda(f);
	facts_read_python(f);
	facts_read_packages(f);
	facts_read_fabric(f);   /* NVSwitches from PCI, Fabric Manager from the packages read above */
	facts_read_resume(f);   /* nvidia_uvm across suspend: the nvidia module and /proc/modules read above */
	f->kfd_dev = sysroot_device(sr, "/dev/kfd");
	facts_build_gpus(f);
	facts_read_devices(f);  /* render and NVIDIA nodes of those GPUs */
	facts_read_container_devs(f); /* inside a container: why a node there cannot be opened */
	if (sr->cap_error)
		facts_cap_error(f);
}
