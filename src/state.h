/* Repeat before failing: a check (or probe) fails a run only once it has
 * failed N runs in a row. The run-state store remembers, per check and
 * subject (a GPU's PCI address, "-" for a result about no one GPU), how many
 * runs in a row it has failed; repeat_gate() applies that count to a report
 * between the checks and the renderers, so every format sees one verdict.
 *
 * The state file (rocmcheck(1), FILES), a text file of lines:
 *
 *   rocmcheck-state 1
 *   run LAST_RUN
 *   fail CHECK SUBJECT FAILING_RUNS FIRST_FAIL LAST_FAIL STATUS
 *   ...
 *   end COUNT
 *
 * times in seconds since the epoch, STATUS "fail" or "error", COUNT the
 * number of fail lines (a cut file has no matching end line). Only failing
 * streaks are kept: a run where the check passes, warns or skips drops its
 * line. A file that does not parse is treated as empty, with a warning.
 *
 * Every read-modify-write holds flock(LOCK_EX) on FILE.lock (a file that is
 * never replaced, so two processes always lock the same inode) and writes a
 * temporary file in the same folder, fsync()s it and renames it over FILE:
 * a crash leaves the old file or the new one, never half of one. The file
 * and the lock file are refused when they are symbolic links or belong to
 * another user than the one running (root's must belong to root). */
#ifndef ROCMCHECK_STATE_H
#define ROCMCHECK_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "util.h"

#define STATE_MAX_ENTRIES 4096          /* the oldest streaks go beyond this */
#define STATE_MAX_BYTES (1024 * 1024)   /* a bigger file is not read */
#define STATE_ID_MAX 64                 /* check ID, NUL included */
#define STATE_SUBJECT_MAX 32            /* "0000:03:00.0", "-", NUL included */
#define STATE_LOCK_TIMEOUT_MS 10000     /* how long doctor waits for the lock */

/* How many failing runs in a row each check needs before it fails: the most
 * specific rule whose check matches (an ID, or a prefix as --only takes it),
 * else default_n. --repeat N sets default_n; a policy file can fill rules.
 * N of 1 is the behaviour without a state: fail at once, record nothing. */
struct repeat_rule {
	char check[STATE_ID_MAX];
	int n;
};
struct repeat_policy {
	int default_n;
	size_t n;
	struct repeat_rule *rules;   /* borrowed */
};
int repeat_needed(const struct repeat_policy *p, const char *check_id);
/* Whether any check needs more than one run (a state file is used at all). */
bool repeat_any(const struct repeat_policy *p);

/* One failing streak. */
struct state_entry {
	char check[STATE_ID_MAX];
	char subject[STATE_SUBJECT_MAX];
	unsigned failing_runs;
	long long first_fail, last_fail;
	enum status last_status;     /* ST_FAIL or ST_ERROR */
};

struct state {
	long long last_run;          /* 0: never */
	struct state_entry *v;
	size_t n, alloc;
};
void state_init(struct state *st);
void state_release(struct state *st);

/* Parse a state file's bytes into st (emptied first). 0, or -EINVAL with
 * "line N: what" in err and st left empty. */
int state_parse(struct state *st, const char *buf, size_t len, struct strbuf *err);
/* The file's bytes for st. */
void state_format(const struct state *st, struct strbuf *out);

/* What one run found for a check and subject: `status` in; `failing_runs`
 * out, the failing runs in a row including this one (0 when not failing). */
struct state_obs {
	const char *check;
	const char *subject;
	enum status status;
	unsigned failing_runs;
};
/* Record one run at `now`: a failing observation (fail, error) starts or
 * extends its streak; the other streaks of a check observed in this run end
 * (it passed, warned or skipped for that subject, or for the whole machine);
 * the streaks of checks the run did not observe stay as they were. Then at
 * most STATE_MAX_ENTRIES remain (the least recently failing go first). A
 * failing check or subject the file cannot hold (not an ID, too long) gets a
 * count no policy reaches: it is never held back. Keys are unique in obs. */
void state_apply(struct state *st, struct state_obs *obs, size_t nobs, long long now);

/* The default state file: /var/lib/rocmcheck/state for root, else
 * $XDG_STATE_HOME/rocmcheck/state ($HOME/.local/state when XDG_STATE_HOME
 * is unset or not absolute). Caller frees; NULL with the reason in err when
 * there is no home to put it in. */
char *state_default_path(struct strbuf *err);

/* An open, locked state file. */
struct state_file {
	char *path;
	int lock_fd;
	struct state st;
};
/* Create the missing folders above path (mode 0700), take the lock (waiting
 * at most timeout_ms) and read the file into sf->st; a missing file is an
 * empty state, an unreadable or torn one too, with one line in warn. Returns
 * 0, or a negative errno with one line in err: a lock held too long
 * (-EWOULDBLOCK), a symbolic link or a file of another user (-EPERM). */
int state_file_open(struct state_file *sf, const char *path, int timeout_ms, struct strbuf *warn,
		    struct strbuf *err);
/* Write sf->st over the file (temporary file, fsync, rename), still locked.
 * Returns 0 or a negative errno with one line in err. */
int state_file_commit(struct state_file *sf, struct strbuf *err);
/* Unlock and free; safe after a failed open. */
void state_file_close(struct state_file *sf);

/* The gate: with a policy where some check needs more than one run, record
 * this run's failing checks and probes in the state file at `path` and turn
 * each failing result that has not yet failed its needed runs into a
 * warning, its summary prefixed "failing K of N runs before it fails: ",
 * with res->repeat set; call before report_finish(). 0, or a negative errno
 * with one line in err (the report is then left as it was). */
int repeat_gate(struct report *r, const struct repeat_policy *p, const char *path, long long now,
		struct strbuf *warn, struct strbuf *err);

#endif
