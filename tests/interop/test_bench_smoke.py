"""A short `twainmq bench` run: every figure is there and positive (speed goals live in `make bench`)."""
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
