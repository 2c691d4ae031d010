#!/usr/bin/perl
# rtl-timing-report.pl STA.txt STAT.txt LIMIT_NS KEY CONFIG TOP SECONDS - summarises one yosys
# `sta` report (scripts/rtl-timing.sh): the critical path's arrival, its start and end point,
# the instances and source lines along it, the endpoints later than the limit, the resources.
# Exit status 1 when the critical path exceeds the limit.
use strict; use warnings;
my ($sta, $stat, $limit, $key, $config, $top, $secs) = @ARGV;
open(my $f, '<', $sta) or die "rtl-timing-report.pl: $sta: $!\n";
my (@path, $arrival, @hist, $in_hist);
while (<$f>) {
  if (/Latest arrival time in '[^']*' is (\d+):/) { $arrival = $1; next; }
  if (/^\s+(\d+)\s+(\S+)\s+\((.*)\)\s*$/ && !$in_hist) { push @path, { t => $1, cell => $2, arc => $3 }; next; }
  if (/^\s{5,}(\S.*?)\s*$/ && @path && !$in_hist && !exists $path[-1]{net}) { $path[-1]{net} = $1; next; }
  if (/Arrival histogram/) { $in_hist = 1; next; }
  if ($in_hist && /^\(\s*(\d+),\s*(\d+)\]\s*\|(.*)$/) { push @hist, [$1, $2, $3]; }
  if ($in_hist && /represents (\d+) endpoint/) { $in_hist = $1; }
}
close $f;
die "rtl-timing-report.pl: $sta: no 'Latest arrival time' line (yosys sta failed?)\n" unless defined $arrival && @path;
my $per_star = $in_hist > 1 ? $in_hist : 1;
# Endpoints later than the limit (bins entirely above it; the bin holding it counts as above).
my $over = 0;
for my $h (@hist) {
  my ($hi, $lo, $bar) = @$h;
  next unless $hi > $limit * 1000;
  my $stars = () = $bar =~ /\*/g;
  my $plus = () = $bar =~ /\+/g;
  $over .= '' ; $over += $stars * $per_star + $plus;   # '+' is between 1 and one star's worth
}
sub clean { my $n = shift; $n =~ s/^\\//; $n =~ s/\s+\[(\d+)\]$/[$1]/; return $n; }
sub inst {  # the instance path of a flattened name, or ''
  my $n = shift;
  if ($n =~ /^\$flatten\\(.*?)\.\$/) { my $p = $1; $p =~ s/\.\\/./g; return $p; }
  $n =~ s/^\\//;
  return $1 if $n =~ /^([A-Za-z_][\w\[\]]*(?:\.[A-Za-z_][\w\[\]]*)*)\.[A-Za-z_]\w*(?:\s*\[\d+\])?$/;
  return '';
}
my $end = $path[0];
my $start = $path[-1];
my $start_desc = $start->{arc} eq '<primary input>' ? "input " . clean($start->{cell}) : clean($start->{net} // $start->{cell});
# The first register or RAM output along the path (reading from the input end).
for my $p (reverse @path) {
  if ($p->{arc} =~ /(C|CLK|CLKARDCLK|CLKBWRCLK|CLR|PRE)->/) {
    # A register's output net names it; a block RAM or DSP slice is named by its cell.
    my $n = clean($p->{net});
    $n = clean($p->{cell}) if $n =~ /clk/ || $p->{cell} !~ /^\$/;
    $start_desc = "$n ($p->{cell} $p->{arc})";
    $start_desc = "$n ($p->{arc})" if $n eq clean($p->{cell});
    last;
  }
}
my (%insts, @order, %lines, @lorder);
for my $p (reverse @path) {
  for my $n ($p->{cell}, $p->{net} // '') {
    my $i = inst($n);
    if ($i ne '' && !$insts{$i}++) { push @order, $i; }
    while ($n =~ m{/(vta_\w+\.sv):(\d+)}g) { my $l = "$1:$2"; push @lorder, $l unless $lines{$l}++; }
  }
}
my $ns = sprintf('%.2f', $arrival / 1000);
my $ok = $arrival <= $limit * 1000;
my %res;
if (open(my $s, '<', $stat)) {
  while (<$s>) { $res{$1} = $2 if /^\s+(\w+)\s+(\d+)\s*$/; }
  close $s;
}
my $luts = 0; $luts += $res{$_} // 0 for qw(LUT1 LUT2 LUT3 LUT4 LUT5 LUT6);
my $ffs = 0; $ffs += $res{$_} // 0 for qw(FDCE FDRE FDSE FDPE);
my $lutram = 0; $lutram += ($res{$_} // 0) for qw(RAM32M RAM64M RAM32X1D RAM64X1D RAM128X1D RAM256X1S);
printf "timing %s %s  %s (%s, top %s): critical path %s ns (limit %s ns), %d endpoint(s) later than the limit\n",
  $ok ? 'ok  ' : 'FAIL', $ns, $key, $config, $top, $ns, $limit, $over;
print "  end:   ", clean($end->{net} // ''), " ($end->{cell} $end->{arc})\n";
print "  start: $start_desc\n";
print "  through instances: ", (@order ? join(' -> ', @order) : '(top level)'), "\n";
print "  source lines: ", (@lorder ? join(' ', @lorder[0 .. ($#lorder < 11 ? $#lorder : 11)]) . ($#lorder > 11 ? ' ...' : '') : '(none named)'), "\n";
printf "  resources: %d LUT, %d FF, %d CARRY4, %d DSP48E1, %d RAMB36E1, %d RAMB18E1, %d LUTRAM cells, %d SRL (%d s)\n",
  $luts, $ffs, $res{CARRY4} // 0, $res{DSP48E1} // 0, $res{RAMB36E1} // 0, $res{RAMB18E1} // 0, $lutram,
  ($res{SRL16E} // 0) + ($res{SRLC32E} // 0), $secs;
exit($ok ? 0 : 1);
