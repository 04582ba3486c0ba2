"""Runtime test cases for recovery rounds, respawn, fault injection, kills from
another terminal and the timeline. They run rte_app (tests/rte/rte_app.cpp),
a fake fault-tolerant application that asks for recovery when notified and
checks every RecoveryResult itself; here we check what all processes agree
on, what ftmpirun printed, and its exit status."""
import json
import os
import re
import stat
import subprocess
import tempfile
import time

from rte_jobs import Job, expect, expect_code, run

FINAL = re.compile(r"^rank (?P<r>\d+) final inc (?P<inc>\d+) epoch (?P<epoch>\d+) rounds (?P<rounds>\d+) "
                   r"covered (?P<covered>\d+) restarted (?P<restarted>\d) table (?P<table>\S+)$", re.M)


def ft_run(ctx, mode, np, app_args, launcher=(), env=None, timeout=90):
    return run(ctx, ["-np", str(np), f"--ft-comm-mode={mode}", *launcher], app_args, program="APP", env=env,
               timeout=timeout)


def finals(j):
    """{rank: final-line fields} from the app's last lines; every rank reports once."""
    got = {}
    for m in FINAL.finditer(j.out):
        r = int(m.group("r"))
        expect(r not in got, f"rank {r} reported twice")
        got[r] = {k: (m.group(k) if k == "table" else int(m.group(k))) for k in
                  ("inc", "epoch", "rounds", "covered", "restarted", "table")}
    expect("APP ERROR" not in j.out, "the application found a wrong RecoveryResult")
    return got


def table_of(np, dead=(), incarnations=None):
    inc = incarnations or {}
    return ",".join(f"{s}.x" if s in dead else f"{s}.{inc.get(s, 0)}" for s in range(np))


def expect_recovered(j, np, table, epoch, covered, rounds=None):
    """Every live slot reports the same final table and epoch."""
    got = finals(j)
    alive = [s for s, e in enumerate(table.split(",")) if not e.endswith(".x")]
    expect(sorted(got) == alive, f"ranks reporting: {sorted(got)}, expected {alive}")
    for r, f in got.items():
        expect(f["table"] == table, f"rank {r} ends with table {f['table']}, expected {table}")
        expect(f["epoch"] == epoch, f"rank {r} ends in epoch {f['epoch']}, expected {epoch}")
        expect(f["covered"] == covered, f"rank {r} covered events up to {f['covered']}, expected {covered}")
        if rounds is not None and not f["restarted"]:
            expect(f["rounds"] == rounds, f"rank {r} went through {f['rounds']} rounds, expected {rounds}")
        expect(f["inc"] == int(table.split(",")[r].split(".")[1]), f"rank {r} runs the wrong incarnation")
        expect(f["restarted"] == (1 if f["inc"] > 0 else 0), f"rank {r}: restarted flag")
    return got


def expect_summary(j, failures, rounds):
    m = re.search(r"^ftmpirun: job survived (\d+) failures? in (\d+) recovery rounds? \([\d.]+ ms recovering\)$",
                  j.err, re.M)
    expect(m, "no summary line")
    expect((int(m.group(1)), int(m.group(2))) == (failures, rounds),
           f"summary says {m.group(1)} failures in {m.group(2)} rounds, expected {failures} in {rounds}")


def expect_round_lines(j, rounds, np):
    done = re.findall(rf"^ftmpirun: recovery round (\d+) done in [\d.]+ ms: epoch (\d+), (\d+) of {np} ranks alive; "
                      r"failed: ([\d. ]+); respawned: (none|[\d. ]+)$", j.err, re.M)
    started = re.findall(r"^ftmpirun: recovery round (\d+) started \(epoch (\d+) -> (\d+); failed so far: ",
                         j.err, re.M)
    expect(len(done) == rounds and len(started) == rounds, f"{len(started)}/{len(done)} round lines, expected {rounds}")
    for i, (n, epoch, _, _, _) in enumerate(done):
        expect(int(n) == i + 1 and int(epoch) == i + 1, f"round line {i}: round {n} epoch {epoch}")
    return done


def recover(ctx, mode, np, victims, ask="all"):
    j = ft_run(ctx, mode, np, [f"victims={','.join(map(str, victims))}", f"ask={ask}"])
    expect_code(j, 0)
    if mode == "rebuild":
        table = table_of(np, incarnations={v: 1 for v in victims})
    else:
        table = table_of(np, dead=victims)
    expect_recovered(j, np, table, epoch=1, covered=len(victims), rounds=1)
    done = expect_round_lines(j, 1, np)
    expect(sorted(int(x.split(".")[0]) for x in done[0][3].split()) == sorted(victims), f"round failed list {done}")
    expect(int(done[0][2]) == (np if mode == "rebuild" else np - len(victims)), "alive count in the round line")
    for v in victims:
        expect(re.search(rf"^ftmpirun: rank {v} \(pid \d+ on \S+\) died: killed by signal 9 in epoch 0; "
                         r"survivors notified$", j.err, re.M), f"no failure line for rank {v}")
        if mode == "rebuild":
            expect(re.search(rf"^ftmpirun: respawning rank {v} as incarnation 1 on \S+$", j.err, re.M),
                   f"no respawn line for rank {v}")
            # Printed in the leader's order: after the failure it answers.
            expect(j.err.index(f"rank {v} (pid") < j.err.index(f"respawning rank {v} "), "respawn before failure")
    expect(("respawning rank" in j.err) == (mode == "rebuild"), "respawn lines only in rebuild mode")
    expect_summary(j, len(victims), 1)
    return j


def case_recover_rebuild_np4(ctx):
    recover(ctx, "rebuild", 4, [2])


def case_recover_rebuild_np8_three(ctx):
    recover(ctx, "rebuild", 8, [1, 4, 6])


def case_recover_blank_np4(ctx):
    recover(ctx, "blank", 4, [0])


def case_recover_blank_np8_three(ctx):
    recover(ctx, "blank", 8, [2, 3, 7])


def case_recover_shrink_np4(ctx):
    recover(ctx, "shrink", 4, [3])


def case_recover_shrink_np8_three(ctx):
    recover(ctx, "shrink", 8, [0, 5, 6])


def during_round(ctx, mode):
    # Survivors ask at the first notice; the other victims are alive (and do
    # not ask), so they die while the round waits: one round handles all.
    j = ft_run(ctx, mode, 8, ["victims=1,4,6", "delay=300", "ask=first"])
    expect_code(j, 0)
    table = table_of(8, incarnations={1: 1, 4: 1, 6: 1}) if mode == "rebuild" else table_of(8, dead=(1, 4, 6))
    expect_recovered(j, 8, table, epoch=1, covered=3, rounds=1)
    done = expect_round_lines(j, 1, 8)
    expect(done[0][3] == "1.0 4.0 6.0", f"failed in event order: {done[0][3]}")
    # The round began before the later failures were sequenced.
    err = j.err
    expect(err.index("recovery round 1 started") < err.index("rank 6 (pid"), "round did not start before rank 6 died")
    expect_summary(j, 3, 1)


def case_recover_during_round_rebuild(ctx):
    during_round(ctx, "rebuild")


def case_recover_during_round_shrink(ctx):
    during_round(ctx, "shrink")


def two_episodes(ctx, mode):
    j = ft_run(ctx, mode, 5, ["victims=1", "late=3"])
    expect_code(j, 0)
    table = table_of(5, incarnations={1: 1, 3: 1}) if mode == "rebuild" else table_of(5, dead=(1, 3))
    got = expect_recovered(j, 5, table, epoch=2, covered=2)
    for r in (0, 2, 4):
        expect(got[r]["rounds"] == 2, f"rank {r} went through {got[r]['rounds']} rounds")
    expect_round_lines(j, 2, 5)
    expect(re.search(r"rank 3 \(pid \d+ on \S+\) died: killed by signal 9 in epoch 1;", j.err), "second failure's epoch")
    expect_summary(j, 2, 2)


def case_recover_two_episodes_rebuild(ctx):
    two_episodes(ctx, "rebuild")


def case_recover_two_episodes_blank(ctx):
    two_episodes(ctx, "blank")


def two_hosts(ctx, mode):
    # Victims on both daemons; the leader's notices, respawns and rounds cross
    # the daemon link; the second episode's victim is on the other host.
    j = ft_run(ctx, mode, 6, ["victims=1,4", "delay=200", "ask=first", "late=5"],
               launcher=["--host", "127.0.0.2:3,127.0.0.3:3"])
    expect_code(j, 0)
    if mode == "rebuild":
        table = table_of(6, incarnations={1: 1, 4: 1, 5: 1})
    else:
        table = table_of(6, dead=(1, 4, 5))
    expect_recovered(j, 6, table, epoch=2, covered=3)
    done = expect_round_lines(j, 2, 6)
    expect(done[0][3] == "1.0 4.0" and done[1][3] == "5.0", f"rounds' failures: {done}")
    for v, host in ((1, "127.0.0.2"), (4, "127.0.0.3")):
        expect(re.search(rf"^ftmpirun: rank {v} \(pid \d+ on {host}\) died", j.err, re.M), f"rank {v} on {host}")
    expect("ftmpid" not in j.err, "a daemon complained")
    expect_summary(j, 3, 2)


def case_recover_two_hosts_rebuild(ctx):
    two_hosts(ctx, "rebuild")


def case_recover_two_hosts_shrink(ctx):
    two_hosts(ctx, "shrink")


def case_recover_refail_rebuild(ctx):
    # Slot 2 dies, and its incarnations 1 and 2 die again before joining.
    j = ft_run(ctx, "rebuild", 4, ["victims=2", "refail=2:3", "ask=first"])
    expect_code(j, 0)
    got = expect_recovered(j, 4, table_of(4, incarnations={2: 3}), epoch=1, covered=3, rounds=1)
    expect(got[2]["restarted"] == 1 and got[2]["inc"] == 3, "slot 2 runs incarnation 3")
    done = expect_round_lines(j, 1, 4)
    expect(done[0][3] == "2.0 2.1 2.2" and done[0][4] == "2.3", f"round: failed {done[0][3]}, respawned {done[0][4]}")
    for inc in (1, 2, 3):
        expect(f"respawning rank 2 as incarnation {inc} on " in j.err, f"no respawn line for incarnation {inc}")
    expect_summary(j, 3, 1)


def case_recover_max_respawn(ctx):
    j = ft_run(ctx, "rebuild", 4, ["victims=2", "refail=2:9", "ask=first"], env={"FTMPI_MAX_RESPAWN": "2"})
    expect_code(j, 1)
    expect(re.search(r"^ftmpirun: rank 2 failed 3 times without completing a recovery round "
                     r"\(FTMPI_MAX_RESPAWN=2\); giving up$", j.err, re.M), "no clear message")
    expect("job survived" not in j.err, "a failed job claims to have survived")


def case_recover_respawn_fails_to_start(ctx):
    # The program disappears after the first start: the respawn cannot exec.
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "app.sh")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\nexec {ctx.app} \"$@\"\n")
        os.chmod(script, 0o755)
        j = Job(ctx, ["-np", "3", "--ft-comm-mode=rebuild", "--inject", "kill rank=1 at=0.8s"], [],
                program=[script, "expect=1", "--marker", "MARKER"])
        j.wait_for_stdout_lines(3)
        os.unlink(script)  # well before the kill
        j.finish(timeout=60)
        j.expect_clean()
    expect_code(j, 1)
    expect(re.search(r"^ftmpirun: rank 1 could not be respawned: incarnation 1 exited with status 127 before it "
                     r"started$", j.err, re.M), "no clear message")


def case_recover_all_but_one(ctx):
    j = ft_run(ctx, "blank", 4, ["victims=1,2,3"])
    expect_code(j, 0)
    expect_recovered(j, 4, table_of(4, dead=(1, 2, 3)), epoch=1, covered=3, rounds=1)
    expect_summary(j, 3, 1)


def all_dead(ctx, mode):
    j = ft_run(ctx, mode, 3, ["victims=0,1,2"])
    expect_code(j, 1)
    expect(re.search(r"^ftmpirun: every process of the job has died; nothing is left to recover$", j.err, re.M),
           "no clear message")
    expect(len(re.findall(r"died: killed by signal 9 in epoch 0", j.err)) == 3, "three failure lines")
    expect("job survived" not in j.err, "a failed job claims to have survived")


def case_recover_all_dead_blank(ctx):
    all_dead(ctx, "blank")


def case_recover_all_dead_shrink(ctx):
    all_dead(ctx, "shrink")


def case_recover_single_rebuild(ctx):
    # np 1: the only process dies, nobody is left to recover with.
    j = ft_run(ctx, "rebuild", 1, ["victims=0"])
    expect_code(j, 1)
    expect("every process of the job has died" in j.err, "no clear message")
    expect("respawning" not in j.err, "respawned with nobody alive")


def case_recover_none_in_ignore_mode(ctx):
    # Recovery mode ignore: notices, but no rounds and no respawn.
    j = run(ctx, ["-np", "4", "--ft-comm-mode=rebuild", "--ft-recovery-mode=ignore"], ["notices", "2"])
    expect_code(j, 0)
    expect("respawning" not in j.err and not re.search(r"recovery round \d", j.err), "rounds or respawns in ignore mode")
    expect(len(re.findall(r"^rank \d saw 1:2\.0$", j.out, re.M)) == 3, "survivors were not notified")


# ---------------------------------------------------------------- injection

def injected(j):
    return re.findall(r"^ftmpirun: injecting failure: kill rank (\d+)", j.err, re.M)


def case_inject_rank(ctx):
    j = ft_run(ctx, "rebuild", 4, ["expect=1"], launcher=["--inject", "kill rank=2 at=0.3s"])
    expect_code(j, 0)
    expect(injected(j) == ["2"], f"injections: {injected(j)}")
    expect_recovered(j, 4, table_of(4, incarnations={2: 1}), epoch=1, covered=1, rounds=1)
    expect(re.search(r"rank 2 \(pid \d+ on \S+\) died: killed by signal 9 in epoch 0", j.err), "not a SIGKILL")


def case_inject_rank_repeated(ctx):
    # The same slot three times: each kill hits the incarnation running then.
    j = ft_run(ctx, "rebuild", 4, ["expect=3", "ask=first"],
               launcher=["--inject", "kill rank=1 at=0.2s every=0.4s count=3"], timeout=90)
    expect_code(j, 0)
    expect(injected(j) == ["1", "1", "1"], f"injections: {injected(j)}")
    got = expect_recovered(j, 4, table_of(4, incarnations={1: 3}), epoch=finals_epoch(j), covered=3)
    expect(got[1]["inc"] == 3, "slot 1 ends as incarnation 3")
    for inc in (0, 1, 2):
        expect(re.search(rf"rank 1 \(pid \d+ on \S+\) died: killed by signal 9 (\(incarnation {inc}\) )?in epoch",
                         j.err), f"incarnation {inc} was not killed")


def finals_epoch(j):
    epochs = {f["epoch"] for f in finals(j).values()}
    expect(len(epochs) == 1, f"ranks end in different epochs: {epochs}")
    return epochs.pop()


def random_victims(ctx, seed):
    j = ft_run(ctx, "blank", 6, ["expect=3", "ask=first"],
               launcher=["--inject", "kill random every=0.3s count=3", "--inject-seed", str(seed)])
    expect_code(j, 0)
    victims = [int(v) for v in injected(j)]
    expect(len(victims) == 3 and len(set(victims)) == 3, f"random victims {victims}: three distinct live ranks")
    expect(f"(random, seed {seed})" in j.err, "the seed is not shown")
    expect_recovered(j, 6, table_of(6, dead=victims), epoch=finals_epoch(j), covered=3)
    return victims


def case_inject_random_seed(ctx):
    a = random_victims(ctx, 1234)
    b = random_victims(ctx, 1234)
    expect(a == b, f"the same seed chose {a} and then {b}")


def case_inject_random_never_all(ctx):
    # Two ranks, three random kills: the last live rank is never taken.
    j = ft_run(ctx, "blank", 2, ["expect=1", "linger=1000"],
               launcher=["--inject", "kill random every=0.2s count=3", "--inject-seed", "5"])
    expect_code(j, 0)
    expect(len(injected(j)) == 1, f"injections: {injected(j)}")
    skipped = re.findall(r"^ftmpirun: injection 'kill random every=0.2s count=3' skipped: fewer than two ranks are "
                         r"alive$", j.err, re.M)
    expect(len(skipped) == 2, f"{len(skipped)} skipped injections, expected 2")


def case_inject_host(ctx):
    # Two "hosts": killing the second daemon loses its ranks; the job goes on.
    j = ft_run(ctx, "blank", 4, ["expect=2"], launcher=["--host", "127.0.0.2:2,127.0.0.3:2",
                                                         "--inject", "kill host=127.0.0.3 at=0.3s"])
    expect_code(j, 0)
    expect("ftmpirun: injecting failure: kill host 127.0.0.3 (its daemon and ranks)" in j.err, "no injection line")
    expect(len(re.findall(r"rank [23] \(pid \d+ on 127\.0\.0\.3\) died: lost with its daemon in epoch 0", j.err)) == 2,
           "ranks 2 and 3 were not reported lost")
    expect_recovered(j, 4, table_of(4, dead=(2, 3)), epoch=1, covered=2, rounds=1)


def case_inject_host_rebuild(ctx):
    # REBUILD moves the slots of a lost host to the next live host in order.
    j = ft_run(ctx, "rebuild", 4, ["expect=2"], launcher=["--host", "127.0.0.2:2,127.0.0.3:2",
                                                           "--inject", "kill host=127.0.0.3 at=0.3s"])
    expect_code(j, 0)
    for r in (2, 3):
        expect(re.search(rf"^ftmpirun: respawning rank {r} as incarnation 1 on 127.0.0.2$", j.err, re.M),
               f"rank {r} not moved to 127.0.0.2")
        expect(re.search(rf"^rank {r} final inc 1 epoch 1 .* restarted 1 ", j.out, re.M), f"rank {r} did not finish")


def case_inject_only_host(ctx):
    j = ft_run(ctx, "blank", 3, ["expect=1"], launcher=["--inject", "kill host=localhost at=0.2s",
                                                         "--host", "localhost:3"])
    expect_code(j, 1)
    expect(re.search(r"^ftmpirun: lost the daemon on localhost", j.err, re.M), "no message for the lost daemon")


def case_inject_bad_specs(ctx):
    app = [ctx.app]
    for spec, text in (("kill", "no target"),
                       ("kill rank=x", "rank must be a number"),
                       ("kill rank=1 at=soon", "bad time 'soon'"),
                       ("kill random count=3", "count=3 needs every="),
                       ("kill host=a every=1s", "a host can be killed only once"),
                       ("kill rank=1 random", "more than one target"),
                       ("kill rank=1 when=2s", "unknown key 'when'"),
                       ("stop rank=1", "must start with 'kill'"),
                       ("kill rank=7", "there is no rank 7 in a job of 4"),
                       ("kill host=elsewhere", "no host 'elsewhere' in this job")):
        p = subprocess.run([ctx.ftmpirun, "-np", "4", "--inject", spec] + app, capture_output=True, text=True,
                           timeout=30)
        expect(p.returncode == 2, f"{spec!r}: exit {p.returncode}, expected 2")
        expect(text in p.stderr and f"'{spec}'" in p.stderr, f"{spec!r}: stderr {p.stderr!r} lacks {text!r}")
        expect(p.stdout == "", f"{spec!r}: a job ran")


# ---------------------------------------------------------------- kill from another terminal

def contact_dir():
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isdir(xdg):
        return os.path.join(xdg, "ftmpi")
    return f"/tmp/ftmpi-{os.getuid()}"


def case_kill_from_terminal(ctx):
    j = Job(ctx, ["-np", "4", "--ft-comm-mode=shrink"], ["expect=1"], program="APP")
    j.wait_for_stdout_lines(4)
    job = j.p.pid
    path = os.path.join(contact_dir(), str(job))
    st = os.stat(path)
    expect(stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.getuid(), f"contact file mode {oct(st.st_mode)}")
    expect(stat.S_IMODE(os.stat(contact_dir()).st_mode) == 0o700, "contact directory is not private")
    jobs = subprocess.run([ctx.ftmpirun, "--jobs"], capture_output=True, text=True, timeout=30)
    expect(jobs.returncode == 0 and re.search(rf"^{job}\s+4\s+\d+s\s+{re.escape(ctx.app)}$", jobs.stdout, re.M),
           f"--jobs does not list the job: {jobs.stdout!r}")
    bad = subprocess.run([ctx.ftmpirun, "--kill", f"{job}:9"], capture_output=True, text=True, timeout=30)
    expect(bad.returncode == 1 and "no rank 9 (the job has 4)" in bad.stderr, f"--kill of rank 9: {bad.stderr!r}")
    nojob = subprocess.run([ctx.ftmpirun, "--kill", "999999:1"], capture_output=True, text=True, timeout=30)
    expect(nojob.returncode == 1 and "no running job 999999" in nojob.stderr, f"unknown job: {nojob.stderr!r}")
    k = subprocess.run([ctx.ftmpirun, "--kill", f"{job}:2"], capture_output=True, text=True, timeout=30)
    expect(k.returncode == 0, f"--kill exit {k.returncode}: {k.stderr!r}")
    expect(re.fullmatch(rf"ftmpirun: job {job}: killed rank 2 \(pid \d+ on \S+, incarnation 0\)\n", k.stdout),
           f"--kill said {k.stdout!r}")
    j.finish(timeout=60)
    j.expect_clean()
    expect_code(j, 0)
    expect("ftmpirun: kill request from another terminal: rank 2" in j.err, "the job did not log the request")
    expect_recovered(j, 4, table_of(4, dead=(2,)), epoch=1, covered=1, rounds=1)
    expect(not os.path.exists(path), "contact file left behind")


def case_kill_several_from_terminal(ctx):
    # One --kill for two ranks: both killed by one request; a request with a
    # bad rank kills none of the others.
    j = Job(ctx, ["-np", "4", "--ft-comm-mode=shrink"], ["expect=2", "ask=all"], program="APP")
    j.wait_for_stdout_lines(4)
    job = j.p.pid
    bad = subprocess.run([ctx.ftmpirun, "--kill", f"{job}:1,9"], capture_output=True, text=True, timeout=30)
    expect(bad.returncode == 1 and bad.stderr == f"ftmpirun: job {job}: no rank 9 (the job has 4)\n"
           and bad.stdout == "", f"--kill of ranks 1,9: {bad.stdout!r} {bad.stderr!r}")
    twice = subprocess.run([ctx.ftmpirun, "--kill", f"{job}:3,3"], capture_output=True, text=True, timeout=30)
    expect(twice.returncode == 2 and twice.stderr == "ftmpirun: --kill names rank 3 twice\n",
           f"--kill of ranks 3,3: {twice.stderr!r}")
    k = subprocess.run([ctx.ftmpirun, "--kill", f"{job}:3,1"], capture_output=True, text=True, timeout=30)
    expect(k.returncode == 0, f"--kill exit {k.returncode}: {k.stderr!r}")
    lines = sorted(k.stdout.splitlines())
    expect(len(lines) == 2 and all(re.fullmatch(rf"ftmpirun: job {job}: killed rank {r} \(pid \d+ on \S+, "
                                                rf"incarnation 0\)", line) for r, line in zip((1, 3), lines)),
           f"--kill said {k.stdout!r}")
    j.finish(timeout=60)
    j.expect_clean()
    expect_code(j, 0)
    expect("ftmpirun: kill request from another terminal: ranks 3, 1\n" in j.err, "the job did not log the request")
    expect_recovered(j, 4, table_of(4, dead=(1, 3)), epoch=1, covered=2, rounds=1)


def case_kill_wrong_secret(ctx):
    # A contact file with a wrong secret cannot kill anything.
    j = Job(ctx, ["-np", "2", "--ft-comm-mode=blank"], ["nap", "2500"])
    j.wait_for_stdout_lines(0)
    time.sleep(0.5)
    path = os.path.join(contact_dir(), str(j.p.pid))
    with open(path) as f:
        text = f.read()
    forged = re.sub(r"^secret [0-9a-f]+$", "secret " + "ab" * 32, text, flags=re.M)
    with open(path, "w") as f:
        f.write(forged)
    k = subprocess.run([ctx.ftmpirun, "--kill", f"{j.p.pid}:1"], capture_output=True, text=True, timeout=30)
    expect(k.returncode == 1 and "cannot reach job" in k.stderr, f"--kill with a wrong secret: {k.stderr!r}")
    j.finish(timeout=60)
    j.expect_clean()
    expect_code(j, 0)
    expect("died" not in j.err, "a rank died")


# ---------------------------------------------------------------- timeline and summary

def case_timeline(ctx):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tl.jsonl")
        j = ft_run(ctx, "rebuild", 4, ["expect=1"], launcher=["--timeline", path, "--inject", "kill rank=1 at=0.2s"])
        expect_code(j, 0)
        with open(path) as f:
            events = [json.loads(line) for line in f]
    names = [e["event"] for e in events]
    for n in ("job_start", "rank_start", "init_done", "inject", "injected", "detection", "death", "notification",
              "respawn", "recovery_begin", "recovery_end", "recovery_released", "rank_exit", "job_end"):
        expect(n in names, f"no {n} event in the timeline")
    expect(names[0] == "job_start" and names[-1] == "job_end", "first/last events")
    expect(names.count("rank_start") == 4, "one rank_start per rank")
    for e in events:
        expect(isinstance(e["t"], float) and e["t"] >= 0 and e["wall"] > 1e9, f"bad stamps in {e}")
    by = {n: [e for e in events if e["event"] == n] for n in set(names)}
    death = by["death"][0]
    expect((death["rank"], death["incarnation"], death["epoch"], death["how"], death["value"]) == (1, 0, 0, "signaled", 9),
           f"death event {death}")
    start1 = [e for e in by["rank_start"] if e["rank"] == 1][0]
    expect(death["pid"] == start1["pid"] and by["detection"][0]["pid"] == start1["pid"], "pids do not match")
    inj = by["injected"][0]
    expect(inj["ok"] == 1 and inj["rank"] == 1 and inj["pid"] == start1["pid"], f"injected event {inj}")
    expect(by["notification"][0]["notified"] == 3 and by["notification"][0]["seq"] == 1, "notification event")
    resp = by["respawn"][0]
    expect(resp["rank"] == 1 and resp["incarnation"] == 1 and resp["pid"] != start1["pid"], f"respawn event {resp}")
    end = by["recovery_end"][0]
    expect(end["epoch"] == 1 and end["failed"] == [1] and end["respawned"] == [1] and end["alive"] == 4, f"{end}")
    expect(end["duration_ms"] >= 0, "duration")
    order = [by[n][0]["t"] for n in ("init_done", "inject", "detection", "notification", "recovery_end")]
    expect(order == sorted(order), f"events out of time order: {order}")
    expect(by["detection"][0]["t"] <= by["death"][0]["t"] <= by["recovery_end"][0]["t"], "detection/death order")
    expect(by["job_end"][0]["status"] == 0 and by["job_end"][0]["failures"] == 1 and by["job_end"][0]["rounds"] == 1,
           f"job_end {by['job_end'][0]}")


def case_summary_flag(ctx):
    j = run(ctx, ["-np", "2", "--summary"], ["cards"])
    expect_code(j, 0)
    expect("ftmpirun: job ended normally after 0 failures in 0 recovery rounds (0 ms recovering)" in j.err,
           f"--summary line missing: {j.err!r}")
    j = run(ctx, ["-np", "2"], ["cards"])
    expect("ftmpirun:" not in j.err, "a summary without --summary and without failures")
