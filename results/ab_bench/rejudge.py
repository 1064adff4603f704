#!/usr/bin/env python3
"""Re-judge saved `boundbench ab --json` outputs (per-case per-round ratios) offline: a Python
re-implementation of harness/ab.cpp's judge_ab before (cur) and after (new) the rule that keeps a
called case whose partners did not move as a whole. AGREE=1: check that `cur` reproduces every
verdict the binary wrote (it did: 474 of 474 over A/, B/ and C/).
usage: rejudge.py 'DIR/*.json'...   (needs scipy)"""
import json, glob, math, os, sys, statistics as st
from scipy import stats
THR, ALPHA, TOG = 0.05, 0.05, 0.8
def judge(d):
    n=len(d); m=sum(d)/n; ss=sum((v-m)**2 for v in d); se=max(math.sqrt(ss/(n-1)/n),1e-6)
    q=stats.t.ppf(1-ALPHA/2,n-1); up=math.log(1+THR); dn=math.log(1-THR)
    ps=stats.t.sf((m-up)/se,n-1); pf=stats.t.cdf((m-dn)/se,n-1)
    return math.exp(m), math.exp(m-q*se), math.exp(m+q*se), min(1,2*min(ps,pf))
def bh(p):
    idx=sorted(range(len(p)), key=lambda i:p[i]); m=len(p); out=[0]*m; prev=1
    for r in range(m-1,-1,-1):
        i=idx[r]; prev=min(prev,p[i]*m/(r+1)); out[i]=prev
    return out
def pearson(a,b):
    ma=sum(a)/len(a); mb=sum(b)/len(b)
    sab=sum((x-ma)*(y-mb) for x,y in zip(a,b)); saa=sum((x-ma)**2 for x in a); sbb=sum((y-mb)**2 for y in b)
    return sab/math.sqrt(saa*sbb) if saa>0 and sbb>0 else 0
def run(cases, new):
    logs={c['case']:[math.log(r) for r in c['ratios']] for c in cases}
    names=list(logs); J={k:judge(v) for k,v in logs.items()}; adj=dict(zip(names,bh([J[k][3] for k in names])))
    ver={}
    for k in names:
        r,lo,hi,_=J[k]; called=adj[k]<=ALPHA
        ver[k]='SLOWER' if called and lo>1+THR else 'FASTER' if called and hi<1-THR else 'SAME' if lo>=1-THR and hi<=1+THR else 'AMBIGUOUS'
    out=dict(ver)
    for k in names:
        if ver[k]=='SAME': continue
        su=k.split('/')[0]
        partners=[logs[o] for o in names if o!=k and o.split('/')[0]==su and pearson(logs[k],logs[o])>=TOG]
        if len(partners)<2: continue
        group=[st.median([p[i] for p in partners]) for i in range(len(logs[k]))]
        own=[a-g for a,g in zip(logs[k],group)]
        rest=judge(own); shared=judge(group)
        beyond=rest[3]<=ALPHA and (rest[1]>1+THR or rest[2]<1-THR)
        if not new:
            if not beyond: out[k]='AMBIGUOUS'
        else:
            group_moved = not (1-THR <= shared[0] <= 1+THR)
            if beyond:
                pass
            elif group_moved: out[k]='AMBIGUOUS'
    return out
SLOW='precision/summation/kahan/fp32/host/n16384'
for new in (False, True):
    for pat in sys.argv[1:]:
        fl={'honest':0,'slowed_other':0}; found=0; ns=0; nh=0; amb=0; comps=0
        for f in sorted(glob.glob(pat)):
            doc=json.load(open(f)); kind='slowed' if 'slowed' in f else 'honest'
            out=run(doc['cases'], new)
            for k,v in out.items():
                comps+=1; amb+= v=='AMBIGUOUS'
                if kind=='slowed' and k==SLOW: found+= v=='SLOWER'
                elif v in('SLOWER','FASTER'): fl['honest' if kind=='honest' else 'slowed_other']+=1; print('   flag',f.split('/')[-2:],k,v)
            ns+= kind=='slowed'; nh+= kind=='honest'
        print('new' if new else 'cur', pat, 'honest inv',nh,'slowed inv',ns,'found',found,'flags',fl,'amb',amb,'of',comps)

def agree(pat):
    bad=0; tot=0
    for f in sorted(glob.glob(pat)):
        doc=json.load(open(f)); out=run(doc['cases'], False)
        for c in doc['cases']:
            tot+=1
            if out[c['case']]!=c['verdict']: bad+=1; print('differs', f, c['case'], out[c['case']], c['verdict'])
    print(pat, 'verdicts reproduced', tot-bad, 'of', tot)
if __name__ == '__main__' and os.environ.get('AGREE'):
    for pat in sys.argv[1:]: agree(pat)
