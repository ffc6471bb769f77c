# SPDX-License-Identifier: GPL-2.0
# How the runner (qemu-run.sh) judges a console and its KTAP documents:
# what is a splat, what --faults drops, which skips fail a run, whether
# /init ran. Sourced after scripts/lib.sh, not executed; runner-selftest.sh
# checks each of these on made-up consoles.

# SPLAT_RE: what fails a boot when it shows on the console (lockdep reports
# begin with "WARNING:" or "BUG:").
SPLAT_RE='BUG:|WARNING:|KASAN:|UBSAN:|sleeping function called from invalid context|Oops|Kernel panic|general protection fault|soft lockup|hard LOCKUP|rcu_.*detected stall|INFO: task .* blocked|unreferenced object|Call Trace:'

# drop_fault_reports <CONSOLE >OUT: the console without what an injected
# allocation fault prints, vmalloc's warn_alloc() report (a failed page or
# slab allocation returns before any warning): each up to the end of its
# stack, at most 100 lines, and never past the start of another report.
# runner-selftest.sh checks each of those limits.
drop_fault_reports() {
	awk -v splat="$SPLAT_RE" '
	     /vmalloc error: / { skip = 1; n = 0; next }
	     skip && /<\/TASK>/ { skip = 0; next }
	     skip && ++n > 100 { skip = 0 }
	     skip && $0 ~ splat && !/Call Trace:/ { skip = 0 }
	     !skip { print }'
}

# unexpected_skips ALLOW FILE...: the "# SKIP" lines of the KTAP documents
# FILE (a KUnit case's, a parameter's, a suite's, a scenario step's) that
# the extended regular expression ALLOW does not match; "" allows none.
unexpected_skips() {
	local allow=$1 f
	shift
	for f; do
		[ ! -f "$f" ] || cat "$f"
	done | grep -E '^[[:space:]]*ok [0-9]+ .*# SKIP' |
		sed 's/^[[:space:]]*//' |
		if [ -n "$allow" ]; then grep -Ev -- "$allow"; else cat; fi || true
}

# init_started CONSOLE: did the guest's /init run? Its boot marker, or any
# later sign of it: an asynchronous kernel message printed at the same
# moment can cut "@@SNAPTRACE-BOOTED ...@@" in two (seen on 7.3), and a
# scenario's own start line, its exit marker or the results prove it too.
INIT_RE='@@SNAPTRACE-BOOTED|BOOTED [^ ]+ cpus=[0-9]+@@|^# scenario [a-z]|@@SNAPTRACE-(SCENARIO-EXIT|KTAP-BEGIN|DONE)'
init_started() {
	grep -Eq "$INIT_RE" "$1"
}

# split_at_init CONSOLE BOOT FROM: CONSOLE cut at the first sign of /init
# (init_started's): the kernel's own boot into BOOT, the rest into FROM.
split_at_init() {
	: >"$2"
	: >"$3"
	awk -v re="$INIT_RE" -v boot="$2" -v from="$3" \
		'!on && $0 ~ re { on = 1 } { print > (on ? from : boot) }' "$1"
}
