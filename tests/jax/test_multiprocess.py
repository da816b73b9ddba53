"""JAX across processes on the plugin: jax.distributed.initialize on localhost, 2 processes of 2
devices each (multiprocess_worker.py runs each one and checks its own results)."""

import os
import pathlib
import socket
import subprocess
import sys

import pytest

WORKER = pathlib.Path(__file__).with_name("multiprocess_worker.py")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_processes(scenario, nproc=2, timeout=240):
    port = free_port()
    env = dict(os.environ)
    env.pop("JAX_PLATFORMS", None)
    env.pop("XLA_FLAGS", None)
    procs = [subprocess.Popen([sys.executable, str(WORKER), str(port), str(p), str(nproc), scenario],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
             for p in range(nproc)]
    outputs = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=timeout)
            outputs.append(out)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for i, (p, out) in enumerate(zip(procs, outputs)):
        assert p.returncode == 0, "process %d exited %s:\n%s" % (i, p.returncode, out[-4000:])
        assert "OK " + scenario in out, out[-4000:]
    return outputs


def test_collectives_across_processes():
    run_processes("collectives")


def test_data_parallel_training_step_across_processes():
    run_processes("train")


def test_a_killed_process_fails_the_survivor_naming_it():
    outputs = run_processes("killed")
    assert "raised after" in outputs[0], outputs[0][-2000:]


def test_device_put_between_processes():
    run_processes("cross_host")


def test_four_processes():
    run_processes("collectives", nproc=4)
