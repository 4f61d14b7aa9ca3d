#!/bin/bash
# bench/run's short-process workload: what a build or test script does, N times a small
# program that prints (expr) and one that does nothing (true), each its own process from
# fork and exec. Start-up is nearly all of it.
for ((i = 0; i < $1; i++)); do
	/usr/bin/expr "$i" \* 3
	/bin/true
done
