#!/usr/bin/env bash
# `cargo check` of the engine and the CLI (all targets: lib, bin, tests, benches) for macOS,
# from this Linux machine: code under cfg(target_os = "macos") or cfg(not(target_os = "linux"))
# is otherwise compiled only by the release workflow's hosted macOS runners (docs/PLATFORMS.md).
#
#   bash scripts/check-macos.sh            engine and CLI (what `make lint` runs)
#   bash scripts/check-macos.sh --app      the app (twainmq-desktop) too; needs ui/dist (`make ui`)
#   bash scripts/check-macos.sh --allow-warnings
#                                          report warnings in our crates without failing
#   MACOS_TARGET=x86_64-apple-darwin bash scripts/check-macos.sh
#
# Exits 1 on a compile error (or a warning in our crates, as clippy's -D warnings does on
# Linux), 2 when this machine lacks what the check needs. A check, not a build: nothing is linked,
# no test is run.
#
# How: rustup has no std for Apple targets here, so Debian's Rust (packages rustc-web,
# cargo-web, rust-web-src) builds std from its source with `-Z build-std` (RUSTC_BOOTSTRAP=1).
# There is no macOS SDK (no Apple C compiler, headers or frameworks), so no C or Objective-C may
# be compiled:
#  - libz-sys (flate2's zlib backend) ignores DOCS_RS and would compile zlib's C with the Linux
#    `cc`, which rejects `-arch arm64`. Its build script is replaced by a cargo build-script
#    override for its `links = "z"` key: link the system libz, which is what libz-sys itself
#    decides on a Mac (macOS ships libz). `cargo check` links nothing, so that line is inert.
#  - DOCS_RS=1 makes the app's mac-notification-sys and objc2-exception-helper skip their
#    Objective-C (their build scripts honour it; nothing in the engine's or CLI's graph reads it).
# Idempotent: everything goes to its own target dir (target/macos); the first run builds std
# for the target and every dependency, later runs re-check only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${MACOS_TARGET:-aarch64-apple-darwin}
rustc_bin=${MACOS_RUSTC:-/usr/bin/rustc}
cargo_bin=${MACOS_CARGO:-/usr/bin/cargo}
# One per checkout: cargo names our crates' results by their path inside the workspace, so a
# target dir shared by two worktrees can take one's results as fresh for the other (seen here).
target_dir=${MACOS_TARGET_DIR:-target/macos}
packages=(-p twainmq -p twainmq-cli)
what="engine and CLI"
deny_warnings=1
for arg in "$@"; do
    case "$arg" in
        --app) packages+=(-p twainmq-desktop); what="engine, CLI and app" ;;
        --allow-warnings) deny_warnings=0 ;;
        -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "check-macos: unknown argument $arg (see --help)" >&2; exit 2 ;;
    esac
done

need() { echo "check-macos: $*" >&2; exit 2; }
[[ -x $rustc_bin && -x $cargo_bin ]] ||
    need "$rustc_bin or $cargo_bin missing: apt-get install rustc-web cargo-web rust-web-src (Debian's Rust, which can build std)"
sysroot=$("$rustc_bin" --print sysroot)
[[ -d $sysroot/lib/rustlib/src/rust/library/std ]] ||
    need "no library source under $sysroot/lib/rustlib/src: apt-get install rust-web-src"
"$rustc_bin" --print target-list | grep -qx "$target" || need "$rustc_bin does not know the target $target"
if [[ " ${packages[*]} " == *" twainmq-desktop "* && ! -f ui/dist/index.html ]]; then
    need "the app embeds ui/dist at compile time and it is not built: run \`make ui\` first"
fi

# ring (rustls' crypto, under the Kafka bridge's client krafka) compiles C and assembly for the
# target in its build script, which Debian's cc cannot do for Apple targets: its build script is
# replaced by a build-script override of its `links` key, as libz's is (on a Mac, ring's own
# build script runs; its Rust side, which reads nothing from the build script, is checked here).
ring_version=$(awk '/^name = "ring"$/ {getline; gsub(/"/, "", $3); print $3; exit}' Cargo.lock)
ring_links="ring_core_${ring_version//./_}_"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "check-macos: cargo check --all-targets of the $what for $target (no SDK here: C build steps skipped)"
[[ -d $target_dir/$target ]] || echo "check-macos: first run: builds std and the dependencies for $target (several minutes on 2 cores)"
start=$(date +%s)
set +e
RUSTC="$rustc_bin" RUSTC_BOOTSTRAP=1 DOCS_RS=1 "$cargo_bin" check --locked --keep-going \
    -Z build-std=std,panic_abort --target "$target" --target-dir "$target_dir" \
    --config "target.$target.z.rustc-link-lib=[\"z\"]" \
    --config "target.$target.$ring_links.rustc-link-lib=[\"$ring_links\"]" \
    "${packages[@]}" --all-targets 2>&1 | tee "$log" | grep -vE '^ +(Compiling|Checking) '
status=${PIPESTATUS[0]}
set -e
took=$(($(date +%s) - start))
took_text="$((took / 60))m $((took % 60))s"

# cargo prints (and, when nothing changed, replays) one such line per crate target that warned.
warned=$(grep -cE '^warning: `twainmq(-cli|-kafka|-desktop)?` \(.*\) generated [0-9]+ warnings?' "$log" || true)
if ((status != 0)); then
    echo "check-macos: FAILED: compile errors for $target (above), in $took_text" >&2
    exit 1
fi
if ((warned > 0 && deny_warnings)); then
    echo "check-macos: FAILED: warnings in our crates for $target (above; --allow-warnings to pass), in $took_text" >&2
    exit 1
fi
((warned == 0)) || echo "check-macos: warnings in our crates for $target (above), allowed"
echo "check-macos: $what compile for $target, in $took_text"
