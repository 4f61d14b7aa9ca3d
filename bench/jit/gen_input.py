#!/usr/bin/python3
"""Deterministic, moderately compressible text for the compressor and sort workloads.

Usage: gen_input.py MIB > FILE

Each line mixes words from a small vocabulary (compressible, like logs or source text)
with base64 of seeded pseudo-random bytes (incompressible beyond base64's 6 bits/char),
so gzip lands around a 2:1 ratio rather than the degenerate extremes of all-random or
all-repeated data. The fixed seed makes every run, and every machine, see the same bytes.
"""
import base64
import random
import sys

WORDS = ("the of and to in is that for it as was with be by on not he this are or his "
         "from at which but have an they you were her she there been one all we their "
         "has would when if so no will more out up into do any your what has man could "
         "other than then some these may only time new about two over like very").split()

def main():
    target = int(float(sys.argv[1]) * (1 << 20))
    rng = random.Random(20240611)
    out = sys.stdout
    written = 0
    lineno = 0
    while written < target:
        lineno += 1
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12)))
        blob = base64.b64encode(rng.randbytes(rng.randint(6, 30))).decode()
        # A random key first so that sort has real work to do (the line number would
        # make the input already sorted).
        line = "%s %07d %s %s\n" % (blob[:8], lineno, words, blob)
        out.write(line)
        written += len(line)

if __name__ == "__main__":
    main()
