#!/bin/bash
# Builds the trial programs into bin/ here (with symbols, never stripped);
# tpool is the example program ../tpool.c.
set -e
cd "$(dirname "$0")"
mkdir -p bin build/f0 build/f2
mpicxx -O2 -g -DOMPI_SKIP_MPICXX=1 -Wall -o bin/ocean-O2 src/ocean.cpp
mpicxx -O0 -g -DOMPI_SKIP_MPICXX=1 -Wall -o bin/ocean-O0 src/ocean.cpp
mpifort -O0 -g -J build/f0 -o bin/poisson-O0 src/poisson.f90
mpifort -O2 -g -fno-inline -J build/f2 -o bin/poisson-O2 src/poisson.f90
mpicc -O2 -g -fopenmp -Wall -o bin/mdomp-O2 src/mdomp.c -lm
gcc -O0 -g -pthread -Wall -o bin/tpool-O0 ../tpool.c
gcc -O2 -g -pthread -Wall -o bin/tpool-O2 ../tpool.c
gcc -O2 -g -pthread -fpatchable-function-entry=5 -Wall -o bin/tpool-O2p ../tpool.c
