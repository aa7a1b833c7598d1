"""TLS and SASL against nisshi, as far as it supports them: TLS with a server certificate (no
client certificates: nisshi takes none), SASL SCRAM-SHA-256 and SCRAM-SHA-512 (its only
mechanisms: PLAIN is refused by it, and that refusal is named). Secrets from a file and from
the environment, never from argv."""

import json
import os
import subprocess

import pytest

from conftest import Broker, base_env, consume_json, mirror, nisshi_binary, run_cli


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")
    run = lambda *a: subprocess.run(a, cwd=d, check=True, capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=twainmq test CA")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext")
    # Another CA, which did not sign the server's certificate.
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.pem", "-days", "2", "-subj", "/CN=other CA")
    return d


def one_topic(tmp_path):
    store = tmp_path / "s"
    store.mkdir()
    run_cli(store, "topics", "create", "t", "--key-type", "u16", "--partitions", "2")
    run_cli(store, "produce", "t", "--jsonl", input="".join(json.dumps({"key": i, "payload": f"secret {i}"}) + "\n" for i in range(20)))
    return store


def round_trip(store, tmp_path, url, *security, env=None):
    mirror(store, "t", "--to", url, "--lease-timeout", "2", *security, env=env)
    back = tmp_path / "back"
    back.mkdir(exist_ok=True)
    mirror(back, "t", "--from", url, *security, env=env)
    assert consume_json(back, "t") == consume_json(store, "t")


def test_tls_with_the_servers_ca_and_refused_with_another(certs, tmp_path):
    b = Broker(tmp_path / "broker", ["--cert", str(certs / "server.pem"), "--key", str(certs / "server.key")]).start()
    try:
        store = one_topic(tmp_path)
        round_trip(store, tmp_path, b.url, "--tls-ca", str(certs / "ca.pem"))
        r = mirror(store, "t", "--to", b.url, "--tls-ca", str(certs / "other.pem"), check=False)
        assert r.returncode == 1 and f"Kafka at {b.address}" in r.stderr, r.stderr
        # Plaintext to a TLS listener: named too.
        r = mirror(store, "t", "--to", b.url, "--timeout", "2", check=False)
        assert r.returncode == 1 and f"Kafka at {b.address}" in r.stderr, r.stderr
    finally:
        b.stop()


def create_users(b):
    for mech, name in (("scram256", "alice"), ("scram512", "bob")):
        subprocess.run([nisshi_binary(), "user", "create", "--broker", f"tcp://{b.address}", "--mechanism", mech, name, f"{name}-pw"],
                       check=True, capture_output=True, timeout=60)


@pytest.mark.parametrize("tls", [False, True], ids=["sasl-plaintext", "sasl-ssl"])
def test_scram_sha_256_and_512_with_secrets_from_a_file_and_the_environment(certs, tmp_path, tls):
    tls_args = ["--cert", str(certs / "server.pem"), "--key", str(certs / "server.key")] if tls else []
    b = Broker(tmp_path / "broker", tls_args)
    b.start()
    try:
        create_users(b) if not tls else None
    finally:
        b.stop()
    if tls:
        # Users are made over a plaintext listener, then the broker restarts with TLS on the same database.
        plain = Broker(tmp_path / "broker")
        plain.port = b.port
        plain.start()
        try:
            create_users(plain)
        finally:
            plain.stop()
    b.extra.append("--authentication")
    b.start()
    try:
        store = one_topic(tmp_path)
        ca = ["--tls-ca", str(certs / "ca.pem")] if tls else []
        pw = tmp_path / "pw"
        pw.write_text("alice-pw\n")
        round_trip(store, tmp_path, b.url, *ca, "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-username", "alice", "--sasl-password-file", str(pw))
        env = dict(base_env(), BOB_PASSWORD="bob-pw")
        out = mirror(store, "t:t512", "--to", b.url, "--lease-timeout", "2", *ca, "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-username", "bob",
                     "--sasl-password-env", "BOB_PASSWORD", env=env)
        assert "20 mirrored" in out.stdout
        # A wrong password, and PLAIN (which nisshi does not offer): refused, named, within seconds.
        pw.write_text("wrong\n")
        r = mirror(store, "t", "--to", b.url, *ca, "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-username", "alice", "--sasl-password-file", str(pw), check=False)
        assert r.returncode == 1 and f"Kafka at {b.address}" in r.stderr and "SASL" in r.stderr, r.stderr
        r = mirror(store, "t", "--to", b.url, *ca, "--sasl-mechanism", "PLAIN", "--sasl-username", "alice", "--sasl-password-env", "BOB_PASSWORD", env=env, check=False)
        assert r.returncode == 1 and f"Kafka at {b.address}" in r.stderr, r.stderr
        # No credentials at all.
        r = mirror(store, "t", "--to", b.url, *ca, "--timeout", "2", check=False)
        assert r.returncode == 1, r.stderr
    finally:
        b.stop()


def test_a_password_is_never_taken_from_the_command_line(tmp_path):
    store = one_topic(tmp_path)
    r = run_cli(store, "mirror", "t", "--to", "kafka://127.0.0.1:9", "--sasl-mechanism", "PLAIN", "--sasl-username", "u", "--sasl-password", "x", check=False)
    assert r.returncode == 2 and "--sasl-password" in r.stderr
