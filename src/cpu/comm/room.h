// Room comm/: communication between the program instances of one execution.
//
// Contract: collectives.h's CollectiveHub is the rendezvous of R x P instances run as threads of
// one process (deposit, wait for all, read, wait again; abort and leave wake every waiter so that
// a failed or diverging instance never hangs the others), and the kernels of the collective ops
// (all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute, collective_broadcast,
// collective_reduce) and of the interpreter's run_parallel on top of it. Replica groups are
// resolved here from the step's parameters (cross-replica, cross-partition, flattened ids).
// When an execution spans processes, the hub runs this process's instances only: once they have
// all deposited, one of them swaps the process's deposits for the other processes' through a
// ProcessExchange (exchange.h says what travels; src/distributed carries it over Gloo), and the
// collectives read every deposit as if all were local.
// Depends on: exec/ (arrays, programs), kernels/ (kernel signatures and parameters).
#pragma once

#include "src/cpu/comm/collectives.h"
