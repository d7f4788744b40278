#!/usr/bin/env python3
"""ncu-summary.py -- per-kernel medians of the CSVs scripts/device/profile-kernels.sh writes (time, registers, occupancy,
instructions, DRAM/L2/L1 bytes):  python3 scripts/device/ncu-summary.py ncu-omp.csv ncu-cuda.csv"""
import csv,sys,collections,statistics
def load(f):
    rows=[l for l in open(f) if l.startswith('"')]
    d=collections.defaultdict(lambda: collections.defaultdict(list)); grid={}
    for r in csv.DictReader(rows):
        k=r['Kernel Name'].split('(')[0]
        v=r['Metric Value'].replace(',','')
        try: v=float(v)
        except: continue
        d[k][r['Metric Name']].append(v); grid[k]=(r['Block Size'],r['Grid Size'])
    return d,grid
short={'gpu__time_duration.sum':'us','launch__registers_per_thread':'regs','sm__warps_active.avg.pct_of_peak_sustained_active':'occ%','smsp__inst_executed.sum':'Minst','dram__bytes.sum':'dramMB','lts__t_bytes.sum':'L2MB','l1tex__t_bytes.sum':'L1MB'}
scale={'us':1e-3,'Minst':1e-6,'dramMB':1e-6,'L2MB':1e-6,'L1MB':1e-6,'regs':1,'occ%':1}
for f in sys.argv[1:]:
    d,g=load(f); print('==',f)
    print('%-36s %-14s %-14s'%('kernel','block','grid')+' '.join('%8s'%s for s in short.values()))
    for k in d:
        vals=[]
        for m,s in short.items():
            x=d[k].get(m); vals.append('%8.1f'%(statistics.median(x)*scale[s]) if x else '%8s'%'-')
        print('%-36s %-14s %-14s'%(k[:36],g[k][0],g[k][1])+' '.join(vals))
