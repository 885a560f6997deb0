/* The emulator's memory cost model (built with EMU_COST; README.md, after
 * the kernel emulator's paragraph).
 *
 * kernel_emu.cpp is compiled at -O0 (source-level access widths, frame
 * pointers) with clang's ThreadSanitizer instrumentation but linked without
 * its runtime: this file supplies the callbacks (__tsan_readN/__tsan_writeN,
 * and __tsan_memcpy/memmove for struct copies),
 * so every load and store the kernels make arrives here with its address,
 * width and return address. It keeps those that touch the kernels'
 * __shared__ arrays (kernel_emu.h puts them in the section emu_shared) or a
 * large heap block (the test's matrices: operator new is replaced to note
 * them), groups the lanes of one wave-wide access by (instruction, block,
 * wave, how often this thread has run that instruction), and at exit
 * prints one line per access site:
 *
 *   banks: KERNEL VARIANT SITE N-way (load|store, B bytes/lane, G accesses)
 *   coalesce: KERNEL VARIANT SITE BYTES/TRANSACTIONS (load|store, T-byte ...)
 *
 * SITE is the kernel source line (symbolized with llvm-symbolizer; for the
 * one-line accessors rc_load4, g16_operand and cv_load, the line that calls
 * them); KERNEL the innermost gemm_fp* or conv_fp* function on the way up
 * the frame pointers (a shared body such as simt_tile is named by its
 * caller). The emulator's own collectives (the
 * nvcuda::wmma loads and stores, wgmma's descriptor reads) report through
 * emu_cost_group() with the access pattern the hardware is documented or
 * assumed to use (kernel_emu.h, kernel_emu.cpp).
 *
 * Bank model. Shared memory / LDS is 32 banks of 4 bytes on every target
 * modelled here, and a wave-wide access is split into phases of 128 bytes:
 * 32 lanes for accesses of up to 4 bytes, 16 lanes for 8 bytes, 8 lanes
 * for 16 bytes. Within a phase, distinct 4-byte words in one bank are
 * serialized (the same word is a broadcast); N-way is the worst bank.
 *  - NVIDIA: 32 banks of 4 bytes; 64-bit accesses are processed per half
 *    warp and 128-bit per quarter warp (CUDA C++ Programming Guide,
 *    "Shared Memory" under the compute capabilities).
 *  - CDNA (gfx90a, gfx942), wave64: LDS of 32 banks, 4 bytes each (AMD ROCm
 *    blog "Avoiding LDS Bank Conflicts on AMD GPUs Using CK-Tile
 *    Framework", 2025); ds_write_b128/ds_read_b128 run in 8 phases of 8
 *    lanes (CK Tile documentation, "Understanding AMD GPU LDS and Bank
 *    Conflicts"); 32-bit accesses are checked per half wave (AMD APP OpenCL
 *    Programming Guide, "Local Memory (LDS) Optimizations").
 *  - RDNA3 (gfx11) and RDNA4 (gfx12), wave32: the same 32 banks of 4 bytes
 *    per phase. The CK Tile page says "32 or 64 banks depending on the
 *    architecture": a WGP's LDS may serve 64 banks, and a 64-bank model can
 *    only lower the degrees printed here, so these are upper bounds.
 * Coalescing: the distinct bytes a wave's lanes touch against the aligned
 * segments that cover them: 32-byte sectors on NVIDIA (CUDA C++ Best
 * Practices Guide, "Coalesced Access to Global Memory"), 64-byte lines on
 * AMD (the CDNA transaction size in AMD's CK bank-conflict material). Fully
 * coalesced: no more segments than the bytes need.
 *
 * All of it is a model of the source as clang compiles it for the host: a
 * GPU compiler may widen or split accesses differently. */
#include "kernel_emu.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#ifndef EMU_COST_VARIANT
#error "emu_cost.cpp: define EMU_COST_VARIANT"
#endif
#if defined(RC_CUDA)
#define COST_SEGMENT 32
#else
#define COST_SEGMENT 64
#endif

extern "C" char __start_emu_shared[], __stop_emu_shared[];

namespace
{
enum space { SP_NONE, SP_SHARED, SP_GLOBAL };

/* the large heap blocks: the test's matrices */
/* a fixed table: allocating here would come back through operator new */
#define HEAP_BLOCKS 256
std::mutex heap_mu;
struct heap_block {
	std::atomic<uintptr_t> at, size;
} heap_blocks[HEAP_BLOCKS];
std::atomic<int> heap_used;
pthread_t main_thread;
bool started;

struct lane_access {
	unsigned lane;
	uintptr_t addr;
	unsigned size;
};
/* the instruction, its function's return address and that one's caller's
 * (the build keeps frame pointers): enough to name the site through the
 * one-line accessors and the kernel through a shared template body */
struct site_pc {
	uintptr_t p[3];
	bool operator<(const site_pc &o) const
	{
		return std::lexicographical_compare(p, p + 3, o.p, o.p + 3);
	}
	bool operator!=(const site_pc &o) const { return p[0] != o.p[0] || p[1] != o.p[1] || p[2] != o.p[2]; }
};
#define COST_PC (uintptr_t) __builtin_frame_address(0)
/* what one site (an instruction, or a named collective) came to */
struct site_stat {
	int sp = SP_NONE;
	unsigned store = 0, size = 0, worst = 0;
	unsigned long long accesses = 0, bytes = 0, segments = 0, ideal = 0;
};

std::mutex stat_mu;
std::map<site_pc, site_stat> pc_stats;                          /* traced */
std::map<std::pair<std::string, std::string>, site_stat> named_stats; /* kernel, site */

int space_of(uintptr_t a)
{
	if (a >= (uintptr_t)__start_emu_shared && a < (uintptr_t)__stop_emu_shared)
		return SP_SHARED;
	int n = heap_used.load(std::memory_order_relaxed);
	for (int i = 0; i < n; i++)
		if (const heap_block &b = heap_blocks[i]; a - b.at.load(std::memory_order_relaxed) < b.size.load(std::memory_order_relaxed))
			return SP_GLOBAL;
	return SP_NONE;
}

/* the worst bank degree of one wave-wide shared access */
unsigned bank_degree(const std::vector<lane_access> &v, unsigned size)
{
	unsigned per_phase = 128 / (size < 4 ? 4 : size), worst = 1;
	std::map<unsigned, std::vector<const lane_access *>> phases;
	for (const lane_access &l : v)
		phases[l.lane / per_phase].push_back(&l);
	for (auto &ph : phases) {
		std::set<uintptr_t> words[32];
		for (const lane_access *l : ph.second)
			for (uintptr_t w = l->addr / 4; w <= (l->addr + l->size - 1) / 4; w++)
				words[w % 32].insert(w);
		for (auto &s : words)
			worst = std::max(worst, (unsigned)s.size());
	}
	return worst;
}

void fold(site_stat &s, int sp, unsigned store, const std::vector<lane_access> &v)
{
	unsigned size = 0;
	for (const lane_access &l : v)
		size = std::max(size, l.size);
	s.sp = sp;
	s.store = store;
	s.size = std::max(s.size, size);
	s.accesses++;
	if (sp == SP_SHARED) {
		s.worst = std::max(s.worst, bank_degree(v, size));
		return;
	}
	std::set<uintptr_t> bytes, segs;
	for (const lane_access &l : v)
		for (uintptr_t b = l.addr; b < l.addr + l.size; b++) {
			bytes.insert(b);
			segs.insert(b / COST_SEGMENT);
		}
	if (getenv("EMU_COST_DEBUG") && segs.size() > (bytes.size() + COST_SEGMENT - 1) / COST_SEGMENT + 8) {
		for (const lane_access &l : v)
			fprintf(stderr, " %u:%zx/%u", l.lane, (size_t)l.addr, l.size);
		fprintf(stderr, "\n");
	}
	s.bytes += bytes.size();
	s.segments += segs.size();
	s.ideal += (bytes.size() + COST_SEGMENT - 1) / COST_SEGMENT;
}

/* One GPU thread's accesses, in order; when the last thread of a block
 * exits, the block's logs are grouped into wave-wide accesses: the same
 * instruction, wave and per-thread count n. */
struct access {
	site_pc pc;
	uintptr_t addr;
	unsigned n, block;
	unsigned short tid, size;
	unsigned char store, sp;
};
std::mutex block_mu;
std::vector<std::vector<access>> block_logs;

void fold_block(void)
{
	std::vector<access> all;
	for (auto &l : block_logs)
		all.insert(all.end(), l.begin(), l.end());
	block_logs.clear();
	std::sort(all.begin(), all.end(), [](const access &x, const access &y) {
		if (x.block != y.block)
			return x.block < y.block;
		if (x.pc != y.pc)
			return x.pc < y.pc;
		if (x.store != y.store)
			return x.store < y.store;
		if (x.tid / EMU_WAVE != y.tid / EMU_WAVE)
			return x.tid / EMU_WAVE < y.tid / EMU_WAVE;
		if (x.n != y.n)
			return x.n < y.n;
		return x.tid < y.tid;
	});
	std::lock_guard<std::mutex> lk(stat_mu);
	std::vector<lane_access> lanes;
	for (size_t i = 0; i < all.size();) {
		size_t j = i;
		lanes.clear();
		for (; j < all.size() && all[j].block == all[i].block && !(all[j].pc != all[i].pc) && all[j].store == all[i].store &&
		       all[j].tid / EMU_WAVE == all[i].tid / EMU_WAVE && all[j].n == all[i].n;
		     j++)
			lanes.push_back({ (unsigned)all[j].tid % EMU_WAVE, all[j].addr, all[j].size });
		fold(pc_stats[all[i].pc], all[i].sp, all[i].store, lanes);
		i = j;
	}
}

struct thread_log {
	std::vector<access> log;
	std::unordered_map<uintptr_t, unsigned> seen;
	~thread_log()
	{
		std::lock_guard<std::mutex> lk(block_mu);
		block_logs.push_back(std::move(log));
		if (block_logs.size() == emu_block_dim.x)
			fold_block();
	}
};
thread_local int gpu_thread = -1;
thread_local thread_log *tlog;
thread_local bool quiet;

/* fp: the frame of the __tsan_ callback; the kernel code above it keeps
 * frame pointers (-O0), so two more return addresses are one walk away */
void record(uintptr_t fp, uintptr_t addr, unsigned size, unsigned store)
{
	if (gpu_thread <= 0) {
		if (gpu_thread == 0 || !started)
			return;
		gpu_thread = !pthread_equal(pthread_self(), main_thread);
		if (!gpu_thread)
			return;
	}
	if (quiet)
		return;
	int sp = space_of(addr);
	if (sp == SP_NONE)
		return;
	site_pc pc;
	const uintptr_t *f = (const uintptr_t *)fp;
	for (int i = 0; i < 3; i++) {   /* up the frame chain while it stays on this stack */
		pc.p[i] = f ? f[1] : 0;
		const uintptr_t *up = f ? (const uintptr_t *)f[0] : nullptr;
		f = up > f && (uintptr_t)up - fp < (1u << 20) ? up : nullptr;
	}
	if (!tlog) {
		static thread_local thread_log l;
		tlog = &l;
	}
	tlog->log.push_back({ pc, addr, tlog->seen[pc.p[0] * 2 + store]++, emu_block_idx.y << 16 | emu_block_idx.x,
			      (unsigned short)emu_thread_idx.x, (unsigned short)size, (unsigned char)store,
			      (unsigned char)sp });
}

/* ---- the report ---- */
struct frame {
	std::string fn, file;
	int line;
};

std::string base_name(const std::string &p)
{
	size_t s = p.find_last_of('/');
	return s == std::string::npos ? p : p.substr(s + 1);
}

bool is_hip(const std::string &f) { return f.size() > 4 && f.compare(f.size() - 4, 4, ".hip") == 0; }

/* kernel and site of an instruction from its inlined frames, innermost
 * first (the outermost kernel source frame is the kernel); false when no
 * kernel source line is innermost */
bool name_site(const std::vector<frame> &fr, std::string &kernel, std::string &site)
{
	static const char *const accessors[] = { "rc_load4", "g16_operand", "cv_load" };
	if (fr.empty() || !is_hip(fr[0].file))
		return false;
	size_t at = 0;
	for (const char *a : accessors)
		if (fr[0].fn == a && fr.size() > 1 && is_hip(fr[1].file))
			at = 1;
	site = base_name(fr[at].file) + ":" + std::to_string(fr[at].line);
	kernel.clear();
	for (const frame &f : fr)   /* the innermost gemm_fp* or conv_fp*, else the outermost .hip frame */
		if (is_hip(f.file)) {
			bool k = (f.fn.rfind("gemm_fp", 0) == 0 || f.fn.rfind("conv_fp", 0) == 0) &&
				 f.fn.find('<') == std::string::npos;
			if (k || kernel.find_first_of("<") != std::string::npos || kernel.empty())
				kernel = f.fn;
			if (k)
				break;
		}
	return !kernel.empty();
}

/* llvm-symbolizer's answer for each pc: frames innermost first */
std::map<uintptr_t, std::vector<frame>> symbolize(const std::vector<uintptr_t> &pcs)
{
	std::map<uintptr_t, std::vector<frame>> out;
	char in[] = "/tmp/emu_cost_pcsXXXXXX";
	int fd = mkstemp(in);
	if (fd < 0)
		return out;
	FILE *f = fdopen(fd, "w");
	for (uintptr_t pc : pcs)
		fprintf(f, "0x%zx\n", (size_t)(pc - 1));
	fclose(f);
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);   /* ours, not the symbolizer's */
	exe[len > 0 ? len : 0] = 0;
	std::string cmd = std::string(EMU_SYMBOLIZER) + " --inlines --functions=short '--obj=" + exe + "' < " + in;
	FILE *p = popen(cmd.c_str(), "r");
	char fn[4096], loc[4096];
	size_t i = 0;
	while (p && i < pcs.size() && fgets(fn, sizeof fn, p)) {
		if (fn[0] == '\n') {
			i++;
			continue;
		}
		if (!fgets(loc, sizeof loc, p))
			break;
		fn[strcspn(fn, "\n")] = 0;
		std::string l(loc);
		size_t c2 = l.rfind(':'), c1 = c2 == std::string::npos ? c2 : l.rfind(':', c2 - 1);
		if (c1 == std::string::npos)
			continue;
		out[pcs[i]].push_back({ fn, l.substr(0, c1), atoi(l.c_str() + c1 + 1) });
	}
	if (p)
		pclose(p);
	unlink(in);
	return out;
}

void merge(site_stat &into, const site_stat &s)
{
	into.sp = s.sp;
	into.store = s.store;
	into.size = std::max(into.size, s.size);
	into.worst = std::max(into.worst, s.worst);
	into.accesses += s.accesses;
	into.bytes += s.bytes;
	into.segments += s.segments;
	into.ideal += s.ideal;
}

void print_site(const std::string &kernel, const std::string &site, const site_stat &s)
{
	const char *kind = s.store ? "store" : "load";
	if (s.sp == SP_SHARED)
		printf("banks: %s %s %s %u-way (%s, %u B/lane, %llu accesses)\n", kernel.c_str(), EMU_COST_VARIANT,
		       site.c_str(), s.worst, kind, s.size, s.accesses);
	else
		printf("coalesce: %s %s %s %llu/%llu (%s, %d-byte segments, %llu needed, %s)\n", kernel.c_str(),
		       EMU_COST_VARIANT, site.c_str(), s.bytes, s.segments, kind, COST_SEGMENT, s.ideal,
		       s.segments <= s.ideal ? "coalesced" : "not coalesced");
}

void report()
{
	started = false;
	{
		std::lock_guard<std::mutex> lk(block_mu);
		fold_block();
	}
	std::set<uintptr_t> unique;
	for (auto &e : pc_stats)
		for (uintptr_t p : e.first.p)
			unique.insert(p);
	std::vector<uintptr_t> pcs(unique.begin(), unique.end());
	auto frames = symbolize(pcs);
	if (getenv("EMU_COST_DEBUG"))
		fprintf(stderr, "emu_cost: %zu instructions, %zu symbolized\n", pcs.size(), frames.size());
	if (!pcs.empty() && frames.empty()) {
		printf("FAIL cost model: %s found no source lines\n", EMU_SYMBOLIZER);
		fflush(stdout);
		_exit(1);
	}
	std::map<std::pair<std::string, std::string>, site_stat> sites = named_stats;
	for (auto &e : pc_stats) {
		std::string kernel, site;
		std::vector<frame> fr;
		for (uintptr_t p : e.first.p)
			fr.insert(fr.end(), frames[p].begin(), frames[p].end());
		if (name_site(fr, kernel, site))
			merge(sites[{ kernel, site + (e.second.store ? "/st" : "/ld") }], e.second);
	}
	for (auto &e : sites) {
		std::string site = e.first.second;
		print_site(e.first.first, site.substr(0, site.size() - 3), e.second);
	}
	fflush(stdout);
}

/* defined after the tables, so destroyed (and reporting) before them */
struct reporter {
	reporter()
	{
		main_thread = pthread_self();
		started = true;
	}
	~reporter() { report(); }
} the_reporter;
} // namespace

/* ---- the emulator's collectives ---- */
void emu_cost_quiet(bool q) { quiet = q; }

void emu_cost_group(const char *kernel, const char *file, int line, const char *what, const void *const *addr, int n,
		    int size, bool store)
{
	if (n <= 0)
		return;
	std::vector<lane_access> v;
	for (int i = 0; i < n; i++)
		v.push_back({ (unsigned)i, (uintptr_t)addr[i], (unsigned)size });
	int sp = space_of((uintptr_t)addr[0]);
	if (sp == SP_NONE)
		return;
	std::string site = base_name(file) + ":" + std::to_string(line) + (what && *what ? std::string("/") + what : "");
	std::lock_guard<std::mutex> lk(stat_mu);
	fold(named_stats[{ kernel, site + (store ? "/st" : "/ld") }], sp, store, v);
}

/* ---- the heap: blocks over 4 KiB are the kernels' global memory ---- */
static void *note_alloc(size_t n)
{
	/* aligned as hipMalloc/cudaMalloc would align the test's matrices */
	void *p = n > 4096 ? aligned_alloc(256, (n + 255) / 256 * 256) : malloc(n ? n : 1);
	if (!p)
		throw std::bad_alloc();
	if (n > 4096) {
		std::lock_guard<std::mutex> g(heap_mu);
		for (int i = 0; i < HEAP_BLOCKS; i++)
			if (heap_block &b = heap_blocks[i]; !b.size) {
				b.at = (uintptr_t)p;
				b.size = n;
				if (i >= heap_used)
					heap_used = i + 1;
				break;
			}
	}
	return p;
}
static void note_free(void *p)
{
	if (!p)
		return;
	{
		std::lock_guard<std::mutex> g(heap_mu);
		for (heap_block &b : heap_blocks)
			if (b.at == (uintptr_t)p)
				b.size = 0;
	}
	free(p);
}
void *operator new(size_t n) { return note_alloc(n); }
void *operator new[](size_t n) { return note_alloc(n); }
void operator delete(void *p) noexcept { note_free(p); }
void operator delete[](void *p) noexcept { note_free(p); }
void operator delete(void *p, size_t) noexcept { note_free(p); }
void operator delete[](void *p, size_t) noexcept { note_free(p); }

/* ---- ThreadSanitizer's instrumentation calls ---- */

#define COST_RW(n)                                                                                                   \
	extern "C" void __tsan_read##n(void *a) { record(COST_PC, (uintptr_t)a, n, 0); } \
	extern "C" void __tsan_write##n(void *a) { record(COST_PC, (uintptr_t)a, n, 1); } \
	extern "C" void __tsan_unaligned_read##n(void *a)                                                            \
	{                                                                                                            \
		record(COST_PC, (uintptr_t)a, n, 0);                                  \
	}                                                                                                            \
	extern "C" void __tsan_unaligned_write##n(void *a)                                                           \
	{                                                                                                            \
		record(COST_PC, (uintptr_t)a, n, 1);                                  \
	}
COST_RW(1)
COST_RW(2)
COST_RW(4)
COST_RW(8)
COST_RW(16)
extern "C" void __tsan_read_range(void *a, size_t n)
{
	record(COST_PC, (uintptr_t)a, (unsigned)n, 0);
}
extern "C" void __tsan_write_range(void *a, size_t n)
{
	record(COST_PC, (uintptr_t)a, (unsigned)n, 1);
}
extern "C" void __tsan_init(void) {}
extern "C" void __tsan_func_entry(void *) {}
extern "C" void __tsan_func_exit(void) {}
extern "C" void *__tsan_memcpy(void *d, const void *s, size_t n)
{
	uintptr_t pc = COST_PC;
	record(pc, (uintptr_t)s, (unsigned)n, 0);
	record(pc, (uintptr_t)d, (unsigned)n, 1);
	return memcpy(d, s, n);
}
extern "C" void *__tsan_memmove(void *d, const void *s, size_t n)
{
	uintptr_t pc = COST_PC;
	record(pc, (uintptr_t)s, (unsigned)n, 0);
	record(pc, (uintptr_t)d, (unsigned)n, 1);
	return memmove(d, s, n);
}
extern "C" void *__tsan_memset(void *d, int c, size_t n)
{
	record(COST_PC, (uintptr_t)d, (unsigned)n, 1);
	return memset(d, c, n);
}
