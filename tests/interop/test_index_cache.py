"""The CLI keeps each store's line index between runs, outside the store, and
takes it only while it still describes the files: 0.2.3 appending meanwhile,
or a file changed under it, never make it read the wrong message."""

import json

from conftest import base_env, run_cli


def _env(cache):
    env = base_env()
    env["TWAINMQ_INDEX_CACHE"] = str(cache)
    return env


def _at(store, env, partition, offset):
    out = run_cli(store, "consume", "t", "--partition", partition, "--from", offset, "--max", 1, "--json", env=env).stdout
    rec = json.loads(out.splitlines()[0])
    return rec["offset"], rec["key"], rec["payload"]["value"]


def _ends(store, env):
    d = json.loads(run_cli(store, "topics", "describe", "t", "--json", env=env).stdout)
    return [p["end"] for p in d["partition_details"]]


def test_cached_index_follows_0_2_3_appends_and_drops_what_changed(twainmq, tmp_path):
    store, cache = tmp_path / "store", tmp_path / "cache"
    store.mkdir()
    cached, fresh = _env(cache), _env("off")
    tmq = twainmq.Twain(str(store))
    tmq.create_topic("t", key_type="u32", partitions=2)
    prod = tmq.producer("t")
    for i in range(3000):
        prod.write_message(i, f"first {i}")

    assert _ends(store, cached) == _ends(store, fresh)
    assert len(list(cache.iterdir())) == 1, "one cache file for the store"
    assert not [p for p in store.rglob("*") if "index" in p.name], "nothing added inside the store"
    assert not (tmp_path / "off").exists()

    # 0.2.3 appends; the cached counts are extended, seeks land on the right line.
    prod = tmq.producer("t")
    for i in range(3000, 4200):
        prod.write_message(i, f"second {i}")
    ends = _ends(store, fresh)
    assert _ends(store, cached) == ends and sum(ends) == 4200
    for p in (0, 1):
        for off in (0, 1500, ends[p] - 1):
            assert _at(store, cached, p, off) == _at(store, fresh, p, off)

    # A file changed in place (a line's newline turned to a space, same length):
    # the cached entry is dropped, the counts are the file's own.
    part_file = sorted((store / "t").glob("0-*"))[0]
    data = bytearray(part_file.read_bytes())
    data[data.index(b"\n")] = ord(" ")
    part_file.write_bytes(bytes(data))
    assert _ends(store, cached) == _ends(store, fresh)
    assert _at(store, cached, 0, 100) == _at(store, fresh, 0, 100)
