#!/usr/bin/python3
"""Interpreter-dispatch workload: a pure-Python loop over calls, method lookups, dict and
string operations. CPython's eval loop jumps through a computed goto per bytecode and
calls through function pointers for every type slot, so this is the indirect-branch-heavy
case that binary translators find hardest.

Usage: loop.py N   (N iterations; prints a checksum so runs can be compared)
"""
import sys


class Vec:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def add(self, o):
        return Vec(self.x + o.x, self.y + o.y)

    def dot(self, o):
        return self.x * o.x + self.y * o.y


def step(i, acc):
    if i % 3 == 0:
        return acc ^ (i * 2654435761 & 0xFFFFFFFF)
    elif i % 3 == 1:
        return (acc + i) & 0xFFFFFFFF
    return (acc * 33 + 7) & 0xFFFFFFFF


def main():
    n = int(sys.argv[1])
    acc = 0
    counts = {}
    v = Vec(1, 2)
    w = Vec(3, -1)
    words = ["alpha", "beta", "gamma", "delta", "eps"]
    for i in range(n):
        acc = step(i, acc)
        v = v.add(w) if i & 1 else Vec(v.y, -v.x)
        key = words[acc % 5] + str(i & 15)
        counts[key] = counts.get(key, 0) + 1
        if len(counts) > 64:
            counts.clear()
        acc = (acc + v.dot(w)) & 0xFFFFFFFF
    print(acc, len(counts), sum(counts.values()), v.x, v.y)


if __name__ == "__main__":
    main()
