#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# The console of qemu-run.sh --interactive as the user's terminal shows it:
# stdin (the guest's serial console and QEMU's own messages, as logged to
# console.log) to stdout without what is the harness's or the emulator's:
# lines holding an @@SNAPTRACE-...@@ marker, the firmware's lines of every
# boot (SeaBIOS, iPXE, "Booting from ROM", the blank lines and terminal
# resets they come with), QEMU's "terminating on signal", and everything
# after @@SNAPTRACE-DONE@@ (the guest powering off, or rebooting until the
# host stops QEMU). console.log keeps all of it for the judge.
#
# A line is judged once it is whole; the start of one that cannot become
# noise (a prompt, the echo of what is typed) is shown at once.
use strict;
use warnings;

my @noise_starts = ('@@SNAPTRACE-', 'SeaBIOS (version', 'iPXE (',
	'Press Ctrl-B', 'Booting from ROM', 'qemu-system-');

# clean TEXT: TEXT without terminal escapes and carriage returns.
sub clean {
	my ($t) = @_;
	$t =~ s/\e\[[0-9;?]*[A-Za-z]|\e[^\[]|\r//g;
	return $t;
}

my $firmware = 1; # a boot's firmware runs until the kernel's first line
my $done = 0;     # after @@SNAPTRACE-DONE@@
my $shown = 0;    # the start of the current line is already out

# noise LINE: whether a whole line is the harness's or the emulator's.
sub noise {
	my ($raw) = @_;
	my $l = clean($raw);
	$firmware = 1 if $raw =~ /\ec/; # a reset: the next boot's firmware
	return 1 if $l =~ /\@\@SNAPTRACE-[^@]*\@\@/;
	return 1 if $l =~ /^(SeaBIOS \(version|iPXE \(|Press Ctrl-B|Booting from ROM)/;
	return 1 if $l =~ /^qemu-system-\S+: terminating on signal/;
	return 1 if $firmware && $l =~ /^\s*$/;
	$firmware = 0;
	return 0;
}

# maybe_noise START: whether a line starting so may still be noise.
sub maybe_noise {
	my $l = clean($_[0]);
	return 1 if $_[0] =~ /\e(\[[0-9;?]*)?$/ || $l eq ''; # an escape's start
	for my $p (@noise_starts) {
		return 1 if index($p, $l) == 0 || index($l, $p) == 0;
	}
	return 0;
}

my ($buf, $chunk) = ('', '');
while (sysread(STDIN, $chunk, 4096)) {
	next if $done;
	$buf .= $chunk;
	my $out = '';
	while ($buf =~ s/^([^\n]*\n)//) {
		my $line = $1;
		if ($shown) {
			$shown = 0;
			$out .= $line;
		} elsif ($line =~ /\@\@SNAPTRACE-DONE\@\@/) {
			$done = 1;
			$buf = '';
			last;
		} elsif (!noise($line)) {
			$out .= $line;
		}
	}
	if ($buf ne '' && ($shown || !maybe_noise($buf))) {
		$out .= $buf;
		$buf = '';
		$shown = 1;
		$firmware = 0;
	}
	syswrite(STDOUT, $out) if $out ne '';
}
syswrite(STDOUT, $buf) if !$done && $buf ne '' && !noise($buf);
