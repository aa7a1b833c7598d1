"""A short `twainmq bench` run: every figure is there and positive; and a coarse guard against
a fall in speed of ten times (speed goals themselves live in `make bench`)."""
import json


def test_bench_reports_every_figure(cli, store):
    out = cli(store, "bench", "--messages", "2000", "--latency-rate", "200", "--seek-messages", "5000", "--json").stdout
    r = json.loads(out)
    for k in ["produce_msgs_per_s", "produce_batched_msgs_per_s", "consume_msgs_per_s", "floor_append_msgs_per_s", "latency_p50_us", "latency_p99_us", "latency_p999_us"]:
        assert r[k] > 0, k
    assert r["latency_samples"] == 200
    assert r["seek"]["messages"] == 5000 and r["seek"]["seek_max_ms"] > 0
    # It cleans up after itself: no topic or stray file is left in the store.
    assert cli(store, "topics", "list", "--json").stdout.strip() == "[]"


def test_speed_has_not_fallen_tenfold(cli, store):
    """The debug build, on a machine running other suites: bounds a tenfold fall fails and
    noise does not. One-message produce is 0.04-0.06 x the floor here in debug (0.6 x in
    release); write-to-read latency p50 70-110 us at 2,000 msg/s (it was 900 us when the
    watcher slept 2 ms between reads: engine round 3, item 19)."""
    r = json.loads(cli(store, "bench", "--messages", "50000", "--latency-rate", "2000", "--json").stdout)
    ratio = r["produce_msgs_per_s"] / r["floor_append_msgs_per_s"]
    assert ratio > 0.012, f"one-message produce is {ratio:.3f} x the floor in this debug build (0.04-0.06 usual)"
    assert r["latency_p50_us"] < 500, f"write-to-read latency p50 {r['latency_p50_us']:.0f} us (70-110 usual)"
