/* The health parsers: the kernel log (klog_parse), RAS counts, retired
 * pages and /dev/shm's size; each on the real formats of research/health.md,
 * the lines that must not match, and hostile text. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "sysroot.h"
#include "util.h"

static const struct klog_event *find(const struct klog_facts *k, enum klog_kind kind, const char *addr)
{
	for (size_t i = 0; i < k->nev; i++)
		if (k->ev[i].kind == kind && (!addr || !strcmp(k->ev[i].addr, addr)))
			return &k->ev[i];
	return NULL;
}

static void parse(const char *text, struct klog_facts *k)
{
	memset(k, 0, sizeof(*k));
	klog_parse(text, strlen(text), k);
}

static void test_xid(void **state)
{
	(void)state;
	struct klog_facts k;
	parse("[81234.110201] NVRM: Xid (PCI:0000:3B:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
	      "[  100.000000] NVRM: Xid (0000:03:00): 14, Channel 00000001\n"
	      "[  101.000000] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n"
	      "[  102.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14\n"
	      "[  103.000000] NVRM: Xid (PCI:0000:3b:0): 79, short key\n", &k);
	const struct klog_event *e = find(&k, KLOG_XID, "0000:3b:00.0");
	assert_non_null(e);
	assert_int_equal(e->code, 79);
	assert_int_equal(e->count, 2);
	assert_int_equal(e->first_line, 1);
	assert_int_equal(e->last_line, 3);
	e = find(&k, KLOG_XID, "0000:03:00.0");
	assert_non_null(e);
	assert_int_equal(e->code, 14);
	assert_int_equal(k.nev, 2);      /* the boot line and the short key match nothing */
	assert_int_equal(k.lines, 5);
	klog_facts_release(&k);
}

/* Debian's firmware_class line counts as the upstream one; a module the
 * kernel refused for its signature is kept for driver.amdgpu, not an event. */
static void test_firmware_debian_and_module_signature(void **state)
{
	(void)state;
	struct klog_facts k;
	parse("[    3.902217] amdgpu 0000:03:00.0: firmware: failed to load amdgpu/psp_13_0_0_sos.bin (-2)\n"
	      "[    3.902221] amdgpu 0000:03:00.0: firmware: direct-loading firmware amdgpu/si58_mc.bin\n"
	      "[   20.100000] Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7\n"
	      "[   21.100000] module verification failed: signature and/or required key missing - tainting kernel\n", &k);
	const struct klog_event *e = find(&k, KLOG_FIRMWARE_MISSING, "0000:03:00.0");
	assert_non_null(e);
	assert_string_equal(e->detail, "amdgpu/psp_13_0_0_sos.bin");
	assert_int_equal(k.nev, 1);      /* a firmware loaded is no event */
	assert_int_equal(k.modsig_line, 3);
	assert_string_equal(k.modsig_text, "Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7");
	klog_facts_release(&k);
	/* the last refusal is kept; "Key was rejected by service" from modprobe too */
	parse("[ 1.0] Loading of unsigned module is rejected\n"
	      "[ 2.0] systemd-modules-load[412]: Failed to insert module 'amdgpu': Key was rejected by service\n", &k);
	assert_int_equal(k.modsig_line, 2);
	assert_non_null(strstr(k.modsig_text, "Key was rejected by service"));
	klog_facts_release(&k);
	parse("[ 1.0] amdgpu 0000:03:00.0: amdgpu: Fetched VBIOS from VFCT\n", &k);
	assert_int_equal(k.modsig_line, 0);
	assert_null(k.modsig_text);
	klog_facts_release(&k);
}

static void test_fallen_off_multiline(void **state)
{
	(void)state;
	struct klog_facts k;
	parse("[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
	      "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
	      "               NVRM: fallen off the bus and is not responding to commands.\n", &k);
	assert_non_null(find(&k, KLOG_FALLEN_OFF, "0000:b3:00.0"));
	klog_facts_release(&k);
}

static void test_amdgpu(void **state)
{
	(void)state;
	struct klog_facts k;
	parse("[ 1.0] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3\n"
	      "[ 2.0] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, but soft recovered\n"
	      "[ 3.0] amdgpu 0000:03:00.0: amdgpu: Ring gfx_0.0.0 reset failed\n"
	      "[ 4.0] amdgpu 0000:03:00.0: amdgpu: GPU reset succeeded, trying to resume\n"
	      "[ 5.0] amdgpu 0000:03:00.0: amdgpu: GPU reset(2) failed\n"
	      "[ 6.0] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_12_0_1_pfp.bin failed with error -2\n"
	      "[ 7.0] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init\n"
	      "[ 8.0] amdgpu 0000:c3:00.0: amdgpu: 2 uncorrectable hardware errors detected in umc block\n"
	      "[ 9.0] amdgpu 0000:c3:00.0: amdgpu: no uncorrectable hardware errors detected in umc block\n"
	      "[10.0] amdgpu 0000:c3:00.0: amdgpu: Saved bad pages 128 reaches threshold value 128\n"
	      "[11.0] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:169 vmid:0 pasid:0)\n"
	      "[12.0] amdgpu 0000:03:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE\n"
	      "[13.0] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=16060, emitted seq=16062\n"
	      "[14.0] amdgpu 0000:03:00.0: amdgpu: SMU driver if version not matched\n"
	      "[15.0] amdgpu 0000:03:00.0: amdgpu: ring comp_1.1.0 uses VM inv eng 4 on hub 0\n", &k);
	assert_non_null(find(&k, KLOG_RING_TIMEOUT, "0000:03:00.0"));
	assert_non_null(find(&k, KLOG_RING_SOFT_RECOVERED, "0000:03:00.0"));
	assert_non_null(find(&k, KLOG_RING_RESET_FAILED, "0000:03:00.0"));
	assert_non_null(find(&k, KLOG_RESET_OK, "0000:03:00.0"));
	assert_non_null(find(&k, KLOG_RESET_FAILED, "0000:03:00.0"));
	const struct klog_event *fw = find(&k, KLOG_FIRMWARE_MISSING, "0000:03:00.0");
	assert_non_null(fw);
	assert_string_equal(fw->detail, "amdgpu/gc_12_0_1_pfp.bin");
	assert_non_null(find(&k, KLOG_INIT_FAILED, "0000:03:00.0"));
	const struct klog_event *ue = find(&k, KLOG_RAS_UE, "0000:c3:00.0");
	assert_non_null(ue);
	assert_int_equal(ue->count, 1);    /* "no uncorrectable ..." is the all-clear, not an error */
	assert_non_null(find(&k, KLOG_BAD_PAGE_THRESHOLD, "0000:c3:00.0"));
	assert_non_null(find(&k, KLOG_VM_FAULT, "0000:03:00.0"));
	assert_non_null(find(&k, KLOG_FIRMWARE_HANG, "0000:03:00.0"));
	assert_non_null(find(&k, KLOG_RING_TIMEOUT, ""));  /* no address: tied to no GPU by the parser */
	assert_int_equal(k.nev, 12);
	klog_facts_release(&k);
}

static void test_aer_and_link(void **state)
{
	(void)state;
	struct klog_facts k;
	parse("[1.0] pcieport 0000:00:01.1: AER: Corrected error received: 0000:03:00.0\n"
	      "[1.1] amdgpu 0000:03:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n"
	      "[2.0] pcieport 0000:00:01.1: AER: Correctable error message received from 0000:01:00.0\n"
	      "[3.0] pcieport 0000:00:01.1: AER: Uncorrected (Non-Fatal) error received: 0000:03:00.0\n"
	      "[3.1] amdgpu 0000:03:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)\n"
	      "[4.0] pci 0000:03:00.0: 63.012 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x4 link at "
	      "0000:00:01.1 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)\n", &k);
	const struct klog_event *c = find(&k, KLOG_AER_CORRECTED, "0000:03:00.0");
	assert_non_null(c);
	assert_int_equal(c->count, 1);     /* the summary, not its detail lines */
	assert_non_null(find(&k, KLOG_AER_CORRECTED, "0000:01:00.0"));
	const struct klog_event *u = find(&k, KLOG_AER_UNCORRECTED, "0000:03:00.0");
	assert_non_null(u);
	assert_int_equal(u->count, 1);
	const struct klog_event *l = find(&k, KLOG_LINK_LIMITED, "0000:03:00.0");
	assert_non_null(l);
	assert_string_equal(l->detail, "x4 at 0000:00:01.1, capable of x16");
	klog_facts_release(&k);
}

/* Hostile logs: no NUL, no newline, 4 MiB of one line, a million short
 * lines, binary; events capped, lines counted, nothing read past the end. */
static void test_hostile(void **state)
{
	(void)state;
	size_t n = 4u << 20;
	char *buf = malloc(n);
	assert_non_null(buf);
	memset(buf, 'a', n);
	struct klog_facts k;
	memset(&k, 0, sizeof(k));
	klog_parse(buf, n, &k);
	assert_int_equal(k.lines, 1);
	assert_int_equal(k.nev, 0);
	klog_facts_release(&k);
	/* 600 different Xid addresses: capped */
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 600; i++)
		strbuf_addf(&sb, "NVRM: Xid (PCI:0000:%02x:%02x): 79, x\n", i / 32, i % 32);
	memset(&k, 0, sizeof(k));
	klog_parse(sb.buf, sb.len, &k);
	assert_int_equal(k.nev, KLOG_MAX_EVENTS);
	assert_true(k.events_capped);
	klog_facts_release(&k);
	strbuf_release(&sb);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(i * 2654435761u >> 13);
	memset(&k, 0, sizeof(k));
	klog_parse(buf, n, &k);
	klog_facts_release(&k);
	free(buf);
}

static void test_ras_and_pages(void **state)
{
	(void)state;
	long long ue, ce;
	assert_int_equal(ras_count_parse("ue: 3\nce: 10\n", &ue, &ce), 0);
	assert_int_equal(ue, 3);
	assert_int_equal(ce, 10);
	assert_int_equal(ras_count_parse("ue: 0\nce: 0\nde: 2\n", &ue, &ce), 0);
	assert_int_equal(ras_count_parse("Query currently inaccessible\n", &ue, &ce), -EINVAL);
	struct pci_health h;
	memset(&h, 0, sizeof(h));
	bad_pages_parse("0x00011a20 : 0x00001000 : R\n0x00011a21 : 0x00001000 : P\n0x00022b40 : 0x00001000 : F\n", &h);
	assert_int_equal(h.bad_pages, 3);
	assert_int_equal(h.bad_pending, 1);
	assert_int_equal(h.bad_failed, 1);
	assert_string_equal(h.bad_example, "0x00011a21 : 0x00001000 : P");
	memset(&h, 0, sizeof(h));
	bad_pages_parse("", &h);
	assert_int_equal(h.bad_pages, 0);
}

static void put16(unsigned char *b, size_t at, unsigned v)
{
	b[at] = (unsigned char)v;
	b[at + 1] = (unsigned char)(v >> 8);
}

static void put64(unsigned char *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[at + i] = (unsigned char)(v >> (8 * i));
}

/* gpu_metrics: v1.3 (RDNA dGPU) and v2.2 (APU) carry indep_throttle_status;
 * v1.4 (MI300) does not; short or lying structure_size never reads past
 * the bytes there are. */
static void test_gpu_metrics(void **state)
{
	(void)state;
	unsigned char b[256];
	struct gpu_metrics_facts m;
	memset(b, 0, sizeof(b));
	put16(b, 0, 120);
	b[2] = 1;
	b[3] = 3;
	put16(b, 6, 71);
	put16(b, 16, 80);
	put64(b, 112, 1ull << 47);
	assert_int_equal(gpu_metrics_parse(b, 120, &m), 0);
	assert_true(m.have_indep);
	assert_true(m.indep_throttle & GPU_THROTTLE_HW);
	assert_int_equal(m.hotspot_c, 71);
	assert_int_equal(m.gfx_activity, 80);
	/* the same bytes cut short: no throttle field, nothing read past 100 */
	assert_int_equal(gpu_metrics_parse(b, 100, &m), 0);
	assert_false(m.have_indep);
	/* a structure_size smaller than the layout */
	put16(b, 0, 64);
	assert_int_equal(gpu_metrics_parse(b, sizeof(b), &m), 0);
	assert_false(m.have_indep);
	/* APU v2.2 */
	memset(b, 0, sizeof(b));
	put16(b, 0, 128);
	b[2] = 2;
	b[3] = 2;
	put16(b, 28, 5);
	put64(b, 120, 1ull << 36);   /* TEMP_HOTSPOT */
	assert_int_equal(gpu_metrics_parse(b, 128, &m), 0);
	assert_true(m.have_indep);
	assert_true(m.indep_throttle & GPU_THROTTLE_TEMP);
	assert_int_equal(m.gfx_activity, 5);
	/* MI300's v1.4: read, no verdict */
	b[2] = 1;
	b[3] = 4;
	put16(b, 0, 200);
	assert_int_equal(gpu_metrics_parse(b, 200, &m), 0);
	assert_true(m.read);
	assert_false(m.have_indep);
	assert_int_equal(gpu_metrics_parse(b, 3, &m), -EINVAL);
	assert_int_equal(gpu_metrics_parse(NULL, 0, &m), -EINVAL);
}

static void test_shm(void **state)
{
	(void)state;
	assert_int_equal(shm_size_from_mounts("proc /proc proc rw 0 0\n"
					      "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n"),
			 64ull << 20);
	assert_int_equal(shm_size_from_mounts("tmpfs /dev/shm tmpfs rw,nosuid,nodev,inode64 0 0\n"), 0);
	assert_int_equal(shm_size_from_mounts("shm /dev/shm tmpfs rw,size=8g 0 0"), 8ull << 30);
	assert_int_equal(shm_size_from_mounts(""), 0);
}

/* The links up from a GPU: each port's maxima are read once and are the
 * hop below's "up" maxima; past HEALTH_MAX_HOPS the last hop kept still
 * gets its port's. Port i (0 = the root's) has max width 32 - i. */
static void hops_case(int ports)
{
	struct sysroot_mem *m = sysroot_mem_new();
	struct strbuf dir = STRBUF_INIT;
	strbuf_addstr(&dir, "sys/devices/pci0000:00");
	char gpu[16] = "";
	for (int i = 0; i <= ports; i++) {
		snprintf(gpu, sizeof(gpu), "0000:%02x:00.0", i + 1);
		strbuf_addf(&dir, "/%s", gpu);
		char *p = xasprintf("%s/max_link_width", dir.buf), *v = xasprintf("%d\n", 32 - i);
		assert_int_equal(sysroot_mem_add_file(m, p, v, strlen(v)), 0);
		free(p);
		free(v);
		p = xasprintf("%s/current_link_width", dir.buf);
		assert_int_equal(sysroot_mem_add_file(m, p, "4\n", 2), 0);
		free(p);
	}
	static const char *const files[][2] = { { "class", "0x030000\n" }, { "vendor", "0x1002\n" },
						  { "device", "0x744c\n" } };
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *p = xasprintf("%s/%s", dir.buf, files[i][0]);
		assert_int_equal(sysroot_mem_add_file(m, p, files[i][1], strlen(files[i][1])), 0);
		free(p);
	}
	char *link = xasprintf("sys/bus/pci/devices/%s", gpu), *target = xasprintf("../../../%s", dir.buf + 4);
	assert_int_equal(sysroot_mem_add_link(m, link, target), 0);
	struct sysroot sr;
	assert_int_equal(sysroot_open_memory(&sr, m, "hops"), 0);
	struct facts f;
	facts_init(&f, &sr);
	facts_read_pci(&f);
	facts_read_health(&f);
	assert_int_equal(f.npci, 1);
	const struct pci_health *h = &f.pci[0].health;
	size_t want = (size_t)ports + 1 < HEALTH_MAX_HOPS ? (size_t)ports + 1 : HEALTH_MAX_HOPS;
	assert_int_equal(h->nhops, want);
	for (size_t k = 0; k < h->nhops; k++) {
		int level = ports - (int)k;       /* the hop's own device */
		assert_int_equal(h->hops[k].width, 4);
		assert_int_equal(h->hops[k].max_width, 32 - level);
		assert_int_equal(h->hops[k].up_max_width, level > 0 ? 32 - (level - 1) : 0);
	}
	facts_release(&f);
	sysroot_release(&sr);
	free(link);
	free(target);
	strbuf_release(&dir);
}

static void test_link_hops(void **state)
{
	(void)state;
	hops_case(2);
	hops_case(HEALTH_MAX_HOPS + 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xid),
		cmocka_unit_test(test_fallen_off_multiline),
		cmocka_unit_test(test_firmware_debian_and_module_signature),
		cmocka_unit_test(test_amdgpu),
		cmocka_unit_test(test_aer_and_link),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_ras_and_pages),
		cmocka_unit_test(test_gpu_metrics),
		cmocka_unit_test(test_shm),
		cmocka_unit_test(test_link_hops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
