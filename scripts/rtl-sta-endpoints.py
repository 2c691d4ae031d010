#!/usr/bin/env python3
"""rtl-sta-endpoints.py NETLIST.json CELLS.json LIMIT_NS [TOP_N] - every late endpoint of a
synthesised design, grouped by register.

yosys' `sta` (scripts/rtl-timing.sh) reports the one latest path. This script computes the
arrival time of every endpoint the same way (the cell library's specify arcs from
`read_verilog -lib -specify +/xilinx/cells_sim.v`: clock-to-output delays at register, block
RAM and DSP outputs, combinational arcs through LUTs, carry chains, multiplexers and LUT RAM
reads; no routing, no setup), so the work left above a limit can be seen at once: for each
register (or RAM / DSP input) group with an endpoint later than LIMIT_NS it prints the number
of late bits, the latest arrival, and that path's start and the source lines along it.

NETLIST.json: `write_json` of the flattened, synthesised top module.
CELLS.json: `write_json` of `read_verilog -lib -specify +/xilinx/cells_sim.v; proc`.
"""
import json
import re
import sys
from collections import defaultdict


def intp(v):
    """A parameter's integer value (JSON: a binary string); 0 if it is undefined (x)."""
    if isinstance(v, str):
        return int(v, 2) if v and set(v) <= set('01') else 0
    return int(v)


def load_lib(path):
    """cell type -> (arcs {(in_port, bit): [(out_port, bit, ps)]}, input port set,
    setup times {(in_port, bit): ps})"""
    lib = {}
    mods = json.load(open(path))['modules']
    for name, m in mods.items():
        bitport = {}
        inputs = set()
        for pname, p in m.get('ports', {}).items():
            for i, b in enumerate(p['bits']):
                bitport[b] = (pname, i)
            if p['direction'] == 'input':
                inputs.add(pname)
        comb = defaultdict(list)
        setup = {}
        for c in m.get('cells', {}).values():
            t = c['type']
            pr = c['parameters']
            if t == '$specrule' and pr.get('TYPE') == '$setup':
                lim = intp(pr.get('T_LIMIT_MAX', '0'))
                for b in c['connections']['SRC']:
                    d = bitport.get(b)
                    if d is not None:
                        setup[d] = max(setup.get(d, 0), lim)
                continue
            if t not in ('$specify2', '$specify3'):
                continue
            ps = max(intp(pr.get('T_RISE_MAX', '0')), intp(pr.get('T_FALL_MAX', '0')))
            dst = [bitport.get(b) for b in c['connections']['DST']]
            src = [bitport.get(b) for b in c['connections']['SRC']]
            # a clock-to-output arc (specify3) is an arc from the clock input, as in `sta`
            full = intp(pr.get('FULL', '0')) or t == '$specify3'
            pairs = [(s, d) for s in src for d in dst] if full else list(zip(src, dst))
            for s, d in pairs:
                if s is not None and d is not None:
                    comb[s].append((d[0], d[1], ps))
        lib[name] = (dict(comb), inputs, setup)
    return lib


SRC_RE = re.compile(r'(vta_\w+\.sv):(\d+)')


def dsp48e1_arcs(params, conns):
    """A DSP48E1 instance's arcs for its register parameters, as cells_sim.v's generate blocks
    and arrival functions give them (the library's specify blocks depend on the parameters,
    which its JSON form has at their defaults), in load_lib's form for the instance's port
    widths (conns): every bit of an input to every bit of an output."""
    def par(name, default):
        v = params.get(name)
        if v is None:
            return default
        return intp(v) if isinstance(default, int) else v.strip()
    areg, breg, creg, dreg = par('AREG', 1), par('BREG', 1), par('CREG', 1), par('DREG', 1)
    adreg, mreg, preg = par('ADREG', 1), par('MREG', 1), par('PREG', 1)
    mult, dport = par('USE_MULT', 'MULTIPLY'), par('USE_DPORT', 'FALSE')
    mul, dp = mult == 'MULTIPLY', dport == 'TRUE'

    def arrival(pcout):
        add = 148 if pcout else 0
        if preg:
            return 435 if pcout else 329
        if creg:
            return 1687 + add
        if mul and mreg:
            return 1671 + add
        if mul and not dp:
            return (2952 if areg else 2813) + add
        if mul and dp:
            for reg, v in ((areg, 3935), (dreg, 3908), (adreg, 2958), (breg, 2813)):
                if reg:
                    return v + add
        for reg, v in ((areg, 1632), (breg, 1616)):
            if reg:
                return v + add
        return None
    arcs = defaultdict(list)  # in_port -> [(out_port, ps)]
    if preg or areg or adreg or breg or creg or dreg or mreg:
        for out in ('P', 'PCOUT'):
            a = arrival(out == 'PCOUT')
            if a is not None:
                arcs['CLK'].append((out, a))
    comb = {'A': (not (preg or mreg or areg or adreg), 2823 if mul and not dp else 3806 if mul else 1523),
            'B': (not (preg or mreg or breg), 2690 if mul else 1509),
            'C': (not (preg or creg), 1325),
            'D': (mul and dp and not (preg or mreg or adreg or dreg), 3717),
            'PCIN': (not preg, 1107)}
    for inp, (on, ps) in comb.items():
        if on:
            arcs[inp].append(('P', ps))
            arcs[inp].append(('PCOUT', ps + 148))
    # setup times of the registered inputs (the library's *.required functions, no pattern
    # detector)
    setup = {}
    if areg:
        setup['A'] = 254
    elif mul and not dp:
        setup['A'] = 1416 if mreg else 2739 if preg else 0
    elif mul and dp:
        setup['A'] = 2400 if mreg else 1283 if adreg else 3723 if preg else 0
    elif preg:
        setup['A'] = 1441
    setup['B'] = 324 if breg else 1285 if mreg else (2608 if mul else 1428) if preg else 0
    setup['C'] = 168 if creg else 1244 if preg else 0
    if preg:
        setup['PCIN'] = 1025
    bit_arcs = {}
    for inp, outs in arcs.items():
        for i in range(len(conns.get(inp, []))):
            bit_arcs[(inp, i)] = [(op, ob, ps) for op, ps in outs
                                  for ob in range(len(conns.get(op, [])))]
    bit_setup = {(inp, i): ps for inp, ps in setup.items()
                 for i in range(len(conns.get(inp, [])))}
    return bit_arcs, bit_setup


def main():
    if len(sys.argv) < 4 or sys.argv[1] in ('-h', '--help'):
        sys.exit('usage: rtl-sta-endpoints.py NETLIST.json CELLS.json LIMIT_NS [TOP_N | GROUP]\n'
                 '  GROUP (a group name as printed): that group\'s latest path, cell by cell')
    netlist, cells_path = sys.argv[1], sys.argv[2]
    try:
        limit = float(sys.argv[3]) * 1000
    except ValueError:
        sys.exit('rtl-sta-endpoints.py: limit \'%s\' is not a number of ns' % sys.argv[3])
    arg = sys.argv[4] if len(sys.argv) > 4 else '40'
    top_n, only = (int(arg), None) if arg.isdigit() else (1, arg)
    lib = load_lib(cells_path)
    mods = json.load(open(netlist))['modules']
    tops = [n for n, m in mods.items() if m.get('attributes', {}).get('top')]
    top = mods[tops[0] if tops else next(iter(mods))]
    # names of nets (prefer public names, without a leading '$')
    netname = {}
    for n, nn in top['netnames'].items():
        pub = not n.startswith('$')
        for i, b in enumerate(nn['bits']):
            if isinstance(b, str):
                continue
            nm = n if len(nn['bits']) == 1 else '%s[%d]' % (n, i)
            if b not in netname or (pub and netname[b][0] == '$'):
                netname[b] = nm
    # timing graph: edges net -> net with delay, sources with start time, endpoints
    fanout = defaultdict(list)   # net -> [(net, ps, cell)]
    endpoints = []               # (net, cell, port, setup ps)
    indeg = defaultdict(int)
    unknown = set()
    for cname, c in top['cells'].items():
        t = c['type']
        if t not in lib:
            unknown.add(t)
            continue
        comb, inputs, setup = lib[t]
        conns = c['connections']
        if t == 'DSP48E1':  # its arcs depend on its parameters
            comb, setup = dsp48e1_arcs(c.get('parameters', {}), conns)
        for pname, bits in conns.items():
            if pname not in inputs:
                continue
            for i, b in enumerate(bits):
                if isinstance(b, str):
                    continue
                arcs = comb.get((pname, i))
                if not arcs:
                    endpoints.append((b, cname, pname, setup.get((pname, i), 0)))
                    continue
                for op, ob, ps in arcs:
                    obits = conns.get(op)
                    if obits and ob < len(obits) and not isinstance(obits[ob], str):
                        fanout[b].append((obits[ob], ps, cname))
                        indeg[obits[ob]] += 1
    # arrival by a topological walk (Kahn) from every net with no combinational driver
    arr = {}
    pred = {}
    allnets = set(fanout) | set(indeg) | {e[0] for e in endpoints}
    for n in allnets:
        arr[n] = 0
    queue = [n for n in allnets if indeg[n] == 0]
    seen = 0
    while queue:
        n = queue.pop()
        seen += 1
        a = arr[n]
        for m, ps, cname in fanout.get(n, ()):
            if a + ps > arr[m] or (m not in pred and a + ps >= arr[m]):
                arr[m] = a + ps
                pred[m] = (n, cname)
            indeg[m] -= 1
            if indeg[m] == 0:
                queue.append(m)
    if seen < len(allnets):
        print('rtl-sta-endpoints: %d nets on combinational loops left out' % (len(allnets) - seen))
    cell_src = {cn: c.get('attributes', {}).get('src', '') for cn, c in top['cells'].items()}

    def group_of(cname, pname):
        c = top['cells'][cname]
        t = c['type']
        if t.startswith('FD') or t.startswith('SRL'):
            q = c['connections'].get('Q') or c['connections'].get('Q31')
            nm = netname.get(q[0], cname) if q and not isinstance(q[0], str) else cname
            return re.sub(r'\[\d+\]$', '', nm.lstrip('\\'))
        return '%s %s.%s' % (t, re.sub(r'\$.*', '', cname.lstrip('\\')) or cname, pname)

    groups = defaultdict(lambda: [0, -1, None])
    total_late = 0
    worst = 0
    for net, cname, pname, su in endpoints:
        a = arr.get(net, 0) + su  # as sta: the arrival plus the input's setup time
        worst = max(worst, a)
        if a <= limit:
            continue
        total_late += 1
        g = groups[group_of(cname, pname)]
        g[0] += 1
        if a > g[1]:
            g[1] = a
            g[2] = net
    print('endpoints %d, later than %.2f ns: %d in %d groups; latest %.2f ns'
          % (len(endpoints), limit / 1000, total_late, len(groups), worst / 1000))
    if unknown:
        print('cells without timing (outputs start at 0): %s' % ' '.join(sorted(unknown)))
    def path_back(net):
        """(net, cell, first) from an endpoint's net back along its latest path; first is set
        for the register, block RAM, DSP or LUT RAM output it starts at (its clock arc)."""
        n = net
        while n in pred:
            m, cname = pred[n]
            first = netname.get(m, '').lstrip('\\').endswith('clk_i')
            yield n, cname, first
            if first:
                return
            n = m

    if only is not None:
        if only not in groups:
            sys.exit('rtl-sta-endpoints.py: no group %s later than the limit' % only)
        cnt, a, net = groups[only]
        print('%6.2f ns  %s, cell by cell (arrival, cell, net):' % (a / 1000, only))
        for n, cname, _ in path_back(net):
            print('  %6.3f  %-10s %s' % (arr[n] / 1000, top['cells'][cname]['type'],
                                        netname.get(n, '?').lstrip('\\')))
        return
    for name, (cnt, a, net) in sorted(groups.items(), key=lambda kv: -kv[1][1])[:top_n]:
        lines, names = [], []
        kind = 'input'
        for n, cname, first in path_back(net):
            nm = netname.get(n, '$')
            if not nm.startswith('$') and nm.lstrip('\\') not in names:
                names.append(nm.lstrip('\\'))
            for f, l in SRC_RE.findall(cell_src.get(cname, '')):
                s = '%s:%s' % (f, l)
                if s not in lines:
                    lines.append(s)
            if first:
                kind = top['cells'][cname]['type']
        print('%6.2f ns %5d  %s' % (a / 1000, cnt, name))
        print('        through %s (%s)' % (' <- '.join(names[:6]) or '-', kind))
        if lines:
            print('        lines %s' % ' '.join(reversed(lines[-8:])))

if __name__ == '__main__':
    main()
