/* facts_names.c: amdgpu.ids and pci.ids rows, lookups through the sysroot
 * (the machine's copy first, the built-in copy for what it lacks), the
 * early stop and line cap on a large pci.ids, the lines a bundle keeps, and
 * the order inventory_annotate names a GPU by. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "facts_names.h"
#include "profiles.h"

static void test_amdgpu_row(void **state)
{
	(void)state;
	unsigned dev, rev;
	const char *name;
	size_t n;
	const char *row = "744C,\tCC,\tAMD Radeon RX 7900 XT\r";
	assert_true(amdgpu_ids_row(row, strlen(row), &dev, &rev, &name, &n));
	assert_int_equal(dev, 0x744c);
	assert_int_equal(rev, 0xcc);
	assert_int_equal(n, strlen("AMD Radeon RX 7900 XT"));
	assert_memory_equal(name, "AMD Radeon RX 7900 XT", n);
	/* libdrm's own file has one row with spaces instead of tabs */
	row = "7481,   C7,     AMD Steam Machine";
	assert_true(amdgpu_ids_row(row, strlen(row), &dev, &rev, &name, &n));
	assert_int_equal(rev, 0xc7);
	const char *bad[] = { "# 744C,\tC8,\tcomment", "1.0.0", "744C,\tC8,\t", "744C,\tC8",
			      "744CC,\tC8,\tX", "744C,\tC,\tX", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_false(amdgpu_ids_row(bad[i], strlen(bad[i]), &dev, &rev, &name, &n));
}

static void test_pci_row(void **state)
{
	(void)state;
	unsigned a, b;
	const char *name;
	size_t n;
	const char *l = "1002  Advanced Micro Devices, Inc. [AMD/ATI]";
	assert_int_equal(pci_ids_row(l, strlen(l), &a, &b, &name, &n), 0);
	assert_int_equal(a, 0x1002);
	l = "\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX]";
	assert_int_equal(pci_ids_row(l, strlen(l), &a, &b, &name, &n), 1);
	assert_int_equal(a, 0x744c);
	assert_memory_equal(name, "Navi 31", 7);
	l = "\t\t1da2 e471  NITRO+ RX 7900 XTX Vapor-X";
	assert_int_equal(pci_ids_row(l, strlen(l), &a, &b, &name, &n), 2);
	assert_int_equal(a, 0x1da2);
	assert_int_equal(b, 0xe471);
	l = "C 03  Display controller";
	assert_int_equal(pci_ids_row(l, strlen(l), &a, &b, &name, &n), 3);
	const char *bad[] = { "# 1002  comment", "\t\t\t1002 0000  deep", "\t\t1da2  no subdevice",
			      "10022  five digits", "1002", "\t744c  ", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(pci_ids_row(bad[i], strlen(bad[i]), &a, &b, &name, &n), -1);
}

static struct name_ask ask(unsigned vendor, unsigned device, int rev, unsigned sv, unsigned sd)
{
	return (struct name_ask){ vendor, device, sv, sd, rev, NULL, NULL, NULL, NULL };
}

static void test_amdgpu_exact(void **state)
{
	(void)state;
	const char *t = "# c\n1.0.0\n744C,\tC8,\tAMD Radeon RX 7900 XTX\n744C,\tCC,\tAMD Radeon RX 7900 XT\n"
			"744C,\tCE,\tAMD Radeon RX 7900 GRE";
	struct name_ask q[4] = { ask(0x1002, 0x744c, 0xcc, 0, 0), ask(0x1002, 0x744c, 0xce, 0, 0),
				 ask(0x1002, 0x744c, 0xc1, 0, 0), ask(0x1002, 0x744c, -1, 0, 0) };
	names_amdgpu_text(t, strlen(t), q, 4);
	assert_string_equal(q[0].amdgpu, "AMD Radeon RX 7900 XT");
	assert_string_equal(q[1].amdgpu, "AMD Radeon RX 7900 GRE"); /* the last line, no newline */
	assert_null(q[2].amdgpu);  /* no row for this revision: libdrm names nothing either */
	assert_null(q[3].amdgpu);
	names_amdgpu_text("", 0, q, 4); /* nothing: nothing changes */
	names_pci_text("", 0, q, 4);
	assert_string_equal(q[0].amdgpu, "AMD Radeon RX 7900 XT");
	for (size_t i = 0; i < 4; i++)
		name_ask_release(&q[i]);
}

static void open_mem(struct sysroot *sr, struct sysroot_mem *m)
{
	assert_int_equal(sysroot_open_memory(sr, m, NULL), 0);
}

/* The machine's copy answers first (ROCm's /opt/amdgpu one before the
 * distribution's); the built-in copy names what it lacks. */
static void test_machine_then_builtin(void **state)
{
	(void)state;
	struct sysroot_mem *m = sysroot_mem_new();
	const char *opt = "1.0.0\n73BF,\tC1,\tAMD Radeon RX 6800 XT (ROCm's libdrm)\n";
	const char *usr = "1.0.0\n73BF,\tC1,\tAMD Radeon RX 6800 XT (distribution)\n"
			  "15BF,\tC2,\tAMD Radeon 780M (distribution)\n";
	assert_int_equal(sysroot_mem_add_file(m, "/opt/amdgpu/share/libdrm/amdgpu.ids", opt, strlen(opt)), 0);
	assert_int_equal(sysroot_mem_add_file(m, "/usr/share/libdrm/amdgpu.ids", usr, strlen(usr)), 0);
	struct sysroot sr;
	open_mem(&sr, m);
	struct name_ask q[4] = { ask(0x1002, 0x73bf, 0xc1, 0, 0), ask(0x1002, 0x15bf, 0xc2, 0, 0),
				 ask(0x1002, 0x74b5, 0x00, 0, 0), ask(0x10de, 0x2684, -1, 0, 0) };
	assert_int_equal(names_amdgpu(&sr, q, 4), 0);
	assert_string_equal(q[0].amdgpu, "AMD Radeon RX 6800 XT (ROCm's libdrm)");
	assert_string_equal(q[1].amdgpu, "AMD Radeon 780M Graphics"); /* /usr's copy is not read */
	assert_string_equal(q[2].amdgpu, "AMD Instinct MI300X VF");    /* built-in */
	assert_null(q[3].amdgpu);
	for (size_t i = 0; i < 4; i++)
		name_ask_release(&q[i]);
	sysroot_release(&sr);
}

/* A pci.ids larger than one 64 KiB piece: rows found across pieces, a line
 * past the cap skipped whole, and the read stopped at the first vendor after
 * the last one asked about. */
static void test_pci_large(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "# pci.ids\n0001  First\n1002  Advanced Micro Devices, Inc. [AMD/ATI]\n");
	for (unsigned i = 0; i < 4000; i++)
		strbuf_addf(&sb, "\t%04x  Filler device %u\n", 0x2000 + i, i);
	strbuf_addstr(&sb, "\t744c  ");
	for (unsigned i = 0; i < 3000; i++)
		strbuf_addch(&sb, 'x');
	strbuf_addstr(&sb, "\n\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX]\n");
	strbuf_addstr(&sb, "\t\t1da2 e470  Another board\n\t\t1da2 e471  NITRO+ RX 7900 XTX Vapor-X\n");
	strbuf_addstr(&sb, "1003  ULSI Systems\n");
	size_t head = sb.len;
	for (unsigned i = 0; i < 40000; i++)
		strbuf_addf(&sb, "%04x  Vendor after %u\n", 0x1004 + i % 0xe000, i);
	struct sysroot_mem *m = sysroot_mem_new();
	assert_int_equal(sysroot_mem_add_file(m, "/usr/share/hwdata/pci.ids", sb.buf, sb.len), 0);
	struct sysroot sr;
	open_mem(&sr, m);
	struct name_ask q = ask(0x1002, 0x744c, 0xc8, 0x1da2, 0xe471);
	assert_int_equal(names_pci(&sr, &q, 1), 0);
	assert_string_equal(q.pci_vendor, "Advanced Micro Devices, Inc. [AMD/ATI]");
	assert_string_equal(q.pci_device, "Navi 31 [Radeon RX 7900 XT/7900 XTX]");
	assert_string_equal(q.pci_subsystem, "NITRO+ RX 7900 XTX Vapor-X");
	assert_true(sb.len > 1000000);
	assert_true(sr.bytes_read < head + 65536 + 1);
	name_ask_release(&q);
	sysroot_release(&sr);
	strbuf_release(&sb);
}

static struct gpu *add_gpu(struct facts *f, enum vendor v, unsigned dev, int rev, const char *arch)
{
	f->gpus = xrealloc(f->gpus, (f->ngpus + 1) * sizeof(*f->gpus));
	f->pci = xrealloc(f->pci, (f->npci + 1) * sizeof(*f->pci));
	struct gpu *g = &f->gpus[f->ngpus];
	struct pci_dev *p = &f->pci[f->npci++];
	memset(g, 0, sizeof(*g));
	memset(p, 0, sizeof(*p));
	g->index = (int)f->ngpus++;
	g->vendor = v;
	g->pci_vendor = p->vendor = v == VENDOR_AMD ? 0x1002 : 0x10de;
	g->pci_device = p->device = dev;
	g->pci_revision = p->revision = rev;
	g->kfd_node = v == VENDOR_AMD ? g->index : -1;
	snprintf(g->arch, sizeof(g->arch), "%s", arch);
	p->addr = xasprintf("0000:%02x:00.0", g->index + 1);
	g->pci_addr = xstrdup(p->addr);
	p->class_code = 0x030000;
	return g;
}

/* A bundle keeps only the lines about this machine's GPUs, and a replay of
 * them names the GPUs the same. */
static void test_capture(void **state)
{
	(void)state;
	const char *ids = "# List of AMDGPU IDs\n\n1.0.0\n73BF,\tC1,\tAMD Radeon RX 6800 XT\n"
			  "744C,\tC8,\tAMD Radeon RX 7900 XTX\n744C,\tCC,\tAMD Radeon RX 7900 XT\n";
	const char *pci = "0001  First\n1002  AMD\n\t73bf  Navi 21\n\t744c  Navi 31\n\t\t1da2 e470  Other\n"
			  "\t\t1da2 e471  NITRO+\n1003  ULSI\n10de  NVIDIA\n";
	struct sysroot_mem *m = sysroot_mem_new();
	assert_int_equal(sysroot_mem_add_file(m, "/usr/share/libdrm/amdgpu.ids", ids, strlen(ids)), 0);
	assert_int_equal(sysroot_mem_add_file(m, "/usr/share/misc/pci.ids", pci, strlen(pci)), 0);
	struct sysroot sr;
	open_mem(&sr, m);
	struct facts f;
	facts_init(&f, &sr);
	add_gpu(&f, VENDOR_AMD, 0x744c, 0xc8, "gfx1100");
	f.pci[0].subsys_vendor = 0x1da2;
	f.pci[0].subsys_device = 0xe471;
	assert_true(names_is_table("/usr/share/misc/pci.ids"));
	assert_false(names_is_table("/usr/share/misc/magic"));
	char *out = NULL;
	size_t len = 0;
	assert_int_equal(names_capture(&sr, "/usr/share/libdrm/amdgpu.ids", &f, &out, &len), 0);
	assert_string_equal(out, "1.0.0\n744C,\tC8,\tAMD Radeon RX 7900 XTX\n744C,\tCC,\tAMD Radeon RX 7900 XT\n");
	struct name_ask q = ask(0x1002, 0x744c, 0xc8, 0x1da2, 0xe471);
	names_amdgpu_text(out, len, &q, 1);
	assert_string_equal(q.amdgpu, "AMD Radeon RX 7900 XTX");
	free(out);
	assert_int_equal(names_capture(&sr, "/usr/share/misc/pci.ids", &f, &out, &len), 0);
	assert_string_equal(out, "1002  AMD\n\t744c  Navi 31\n\t\t1da2 e471  NITRO+\n");
	names_pci_text(out, len, &q, 1);
	assert_string_equal(q.pci_subsystem, "NITRO+");
	free(out);
	name_ask_release(&q);
	facts_release(&f);
	sysroot_release(&sr);
}

/* README "GPU names": the most specific source wins. */
static void test_name_order(void **state)
{
	(void)state;
	struct profiles *db = NULL;
	assert_int_equal(profiles_load(&db, NULL, NULL), 0);
	struct sysroot_mem *m = sysroot_mem_new();
	const char *ids = "1.0.0\n66A1,\t02,\tAMD Instinct MI60 / MI50\n";
	assert_int_equal(sysroot_mem_add_file(m, "/usr/share/libdrm/amdgpu.ids", ids, strlen(ids)), 0);
	struct sysroot sr;
	open_mem(&sr, m);
	struct facts f;
	facts_init(&f, &sr);
	add_gpu(&f, VENDOR_AMD, 0x66a1, 0x02, "gfx906")->compute_units = 60; /* profile pinned by CUs */
	add_gpu(&f, VENDOR_AMD, 0x66a1, 0x02, "gfx906");                     /* CUs unknown: amdgpu.ids */
	add_gpu(&f, VENDOR_AMD, 0x74b5, 0x00, "gfx942");                     /* the built-in amdgpu.ids */
	add_gpu(&f, VENDOR_AMD, 0x15bf, 0xc2, "gfx1103");
	add_gpu(&f, VENDOR_AMD, 0x744c, -1, "gfx1100");                      /* shared id: subsystem */
	add_gpu(&f, VENDOR_AMD, 0x744c, -1, "gfx1100");                      /* shared id, nothing more */
	add_gpu(&f, VENDOR_AMD, 0x74b5, 0x01, "gfx942");                     /* no row: pci.ids device */
	add_gpu(&f, VENDOR_AMD, 0x1638, 0xc8, "gfx90c");
	add_gpu(&f, VENDOR_AMD, 0x74b5, 0x01, "gfx942");                     /* its board's own name */
	add_gpu(&f, VENDOR_NVIDIA, 0x9999, 0xa1, "");
	f.pci[4].subsys_vendor = 0x1da2;
	f.pci[4].subsys_device = 0xe471;
	f.pci[8].board_name = xstrdup("AMD Instinct MI300X VF (FRU)");
	f.gpus[8].board_name = f.pci[8].board_name;
	inventory_annotate(&f, db);
	const char *want[] = {
		"AMD Instinct MI50",
		"AMD Instinct MI60 / MI50",
		"AMD Instinct MI300X VF",
		"AMD Radeon 780M Graphics",
		"NITRO+ RX 7900 XTX Vapor-X",
		"AMD RDNA3 GPU gfx1100 (1002:744c, board not known)",
		"AMD Aqua Vanjaram [Instinct MI300X VF]",
		"AMD Cezanne [Radeon Vega Series / Radeon Vega Mobile Series]",
		"AMD Instinct MI300X VF (FRU)",
		"NVIDIA GPU (10de:9999)",
	};
	for (size_t i = 0; i < f.ngpus; i++)
		assert_string_equal(f.gpus[i].name, want[i]);
	/* pci.ids was read (nothing better named gpus 4 to 9): recorded for a bundle */
	bool pci_read = false;
	for (size_t i = 0; i < sysroot_recorded(&sr)->n; i++)
		pci_read = pci_read || !strcmp(sysroot_recorded(&sr)->v[i], "/usr/share/misc/pci.ids");
	assert_true(pci_read);
	facts_release(&f);
	sysroot_release(&sr);
	profiles_free(db);
}

/* Named from amdgpu.ids and the profile alone: pci.ids is never opened. */
static void test_pci_ids_not_read(void **state)
{
	(void)state;
	struct profiles *db = NULL;
	assert_int_equal(profiles_load(&db, NULL, NULL), 0);
	struct sysroot sr;
	open_mem(&sr, sysroot_mem_new());
	struct facts f;
	facts_init(&f, &sr);
	add_gpu(&f, VENDOR_AMD, 0x744c, 0xc8, "gfx1100")->compute_units = 96;
	add_gpu(&f, VENDOR_NVIDIA, 0x2684, 0xa1, "");
	inventory_annotate(&f, db);
	assert_string_equal(f.gpus[0].name, "AMD Radeon RX 7900 XTX");
	assert_string_equal(f.gpus[1].name, "NVIDIA GeForce RTX 4090");
	for (size_t i = 0; i < sysroot_recorded(&sr)->n; i++)
		assert_null(strstr(sysroot_recorded(&sr)->v[i], "pci.ids"));
	facts_release(&f);
	sysroot_release(&sr);
	profiles_free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amdgpu_row),
		cmocka_unit_test(test_pci_row),
		cmocka_unit_test(test_amdgpu_exact),
		cmocka_unit_test(test_machine_then_builtin),
		cmocka_unit_test(test_pci_large),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_name_order),
		cmocka_unit_test(test_pci_ids_not_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
