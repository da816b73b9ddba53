# Counts the instructions one stretch of a run executes, function by function, by single-stepping
# it under gdb: for a loop body's step, where this VM has no performance counters (perf stat says
# <not supported>) and valgrind cannot run AVX-512 code. Session 52 traced a 64-wide RNN step
# (~2,300 instructions, then ~2,000) with it.
#
#   gdb -q -batch -x scripts/gdb_instruction_trace.py --args \
#       build/bin/openpjrt bench rnn.mlir --threads 1 --input 0=w.npy --input 1=xs.npy --iters 20
#
# Environment: TRACE_BREAK (the function to start at, default openpjrt::cpu::FusedSmall),
# TRACE_SKIP (hits of it to pass first, so that the program is warm; default 3000), TRACE_STEPS
# (instructions to step; default 2600), TRACE_OUT (the per-instruction log; default
# /tmp/instruction_trace.txt). Prints, in order, each run of consecutive instructions in one
# function with its length, then the totals per function.
import collections
import os

import gdb

start = os.environ.get("TRACE_BREAK", "openpjrt::cpu::FusedSmall")
skip = int(os.environ.get("TRACE_SKIP", "3000"))
steps = int(os.environ.get("TRACE_STEPS", "2600"))
log_path = os.environ.get("TRACE_OUT", "/tmp/instruction_trace.txt")

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("break " + start)
gdb.execute("run", to_string=True)
gdb.execute("ignore 1 %d" % skip)
gdb.execute("continue", to_string=True)
gdb.execute("delete")


def function_at(pc):
    where = gdb.execute("info symbol %d" % pc, to_string=True).split(" in section")[0]
    # The name without its offset and argument list ("(anonymous namespace)" kept as {anon}).
    return where.split(" + ")[0].replace("(anonymous namespace)", "{anon}").split("(")[0]


totals = collections.Counter()
runs = []  # [function, instructions]
with open(log_path, "w") as log:
    for _ in range(steps):
        pc = int(gdb.parse_and_eval("$pc"))
        name = function_at(pc)
        text = gdb.execute("x/i $pc", to_string=True).strip()
        log.write("%s | %s\n" % (name, text.split(":", 1)[-1].strip()))
        totals[name] += 1
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
        gdb.execute("stepi", to_string=True)
for name, count in runs:
    print("%6d  %s" % (count, name[:110]))
print("per function:")
for name, count in totals.most_common():
    print("%6d  %s" % (count, name[:110]))
gdb.execute("kill")
