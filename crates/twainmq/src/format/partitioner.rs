//! 0.2.3's partitioner: splitmix64's finaliser evaluated on Python's unbounded
//! integers, then `% partitions`.
//!
//! The products are not truncated to 64 bits, so the high bits feed back into
//! the result through the shifts. Integer keys (at most 64 bits) take a
//! fixed-width path of three 64-bit limbs; string keys, whose integer value is
//! unbounded, take the `num-bigint` path. Both are checked against each other
//! and against 0.2.3's own vectors.

use num_bigint::BigUint;

use crate::format::key::Key;

const C1: u64 = 0xbf58_476d_1ce4_e5b9;
const C2: u64 = 0x94d0_49bb_1331_11eb;

/// The partition 0.2.3 picks for `key` in a topic of `partitions` partitions.
///
/// Free keys (the format's next version) take the same function over their
/// bytes: `int.from_bytes(key, "big")` then splitmix, so a text key goes to
/// the partition a `charN` topic of as many partitions gives it, and a bytes
/// key to the partition of the text with those UTF-8 bytes (the kind does not
/// matter, as Kafka's keys are bytes). The null key has no partition of its
/// own (producers spread null-keyed messages over the partitions in turn):
/// here it is 0.
///
/// # Examples
/// ```
/// use twainmq::{partition_for, Key};
/// assert_eq!(partition_for(&Key::Int(0), 4), 0);
/// assert!(partition_for(&Key::from("user-17"), 3) < 3);
/// ```
///
/// # Panics
/// Never; `partitions` of 0 is treated as 1.
pub fn partition_for(key: &Key, partitions: u32) -> u32 {
    let n = partitions.max(1);
    match key {
        Key::Int(v) => partition_u64(*v, n),
        Key::Str(s) => partition_bytes(s.as_bytes(), n),
        Key::Bytes(b) => partition_bytes(b, n),
        Key::Null => 0,
    }
}

/// The partition of a key of these bytes, taken as one big-endian unsigned integer.
fn partition_bytes(b: &[u8], n: u32) -> u32 {
    if b.len() <= 8 {
        let mut buf = [0u8; 8];
        buf[8 - b.len()..].copy_from_slice(b);
        return partition_u64(u64::from_be_bytes(buf), n);
    }
    partition_big(BigUint::from_bytes_be(b), n)
}

fn partition_u64(x: u64, n: u32) -> u32 {
    // y = (x ^ (x >> 30)) * C1 < 2^128.
    let a = x ^ (x >> 30);
    let y = u128::from(a) * u128::from(C1);
    // z = y ^ (y >> 27) < 2^128; w = z * C2 < 2^192, as limbs w2:w1:w0.
    let z = y ^ (y >> 27);
    let (z_lo, z_hi) = limbs(z);
    let (w0, p_lo_hi) = limbs(u128::from(z_lo) * u128::from(C2));
    let (p_hi_lo, p_hi_hi) = limbs(u128::from(z_hi) * u128::from(C2));
    let (w1, carry) = limbs(u128::from(p_lo_hi) + u128::from(p_hi_lo));
    // z_hi * C2 < 2^64 * C2, so p_hi_hi < C2 and p_hi_hi + carry <= C2 < 2^64.
    let w2 = p_hi_hi + carry;
    // v = w ^ (w >> 31).
    let s0 = (w0 >> 31) | (w1 << 33);
    let s1 = (w1 >> 31) | (w2 << 33);
    let s2 = w2 >> 31;
    let (v0, v1, v2) = (w0 ^ s0, w1 ^ s1, w2 ^ s2);
    // v % n, limb by limb from the top.
    let n = u128::from(n);
    let mut r = u128::from(v2) % n;
    r = ((r << 64) | u128::from(v1)) % n;
    r = ((r << 64) | u128::from(v0)) % n;
    // r < n <= u32::MAX, so the fallback is never taken.
    u32::try_from(r).unwrap_or(0)
}

/// The low and high 64-bit halves of `x`.
// The low half is the truncation, by design; the high one is below 2^64.
#[allow(clippy::cast_possible_truncation)]
fn limbs(x: u128) -> (u64, u64) {
    (x as u64, (x >> 64) as u64)
}

fn partition_big(x: BigUint, n: u32) -> u32 {
    let x = (&x ^ (&x >> 30u32)) * BigUint::from(C1);
    let x = (&x ^ (&x >> 27u32)) * BigUint::from(C2);
    let x = &x ^ (&x >> 31u32);
    let r = x % BigUint::from(n);
    r.iter_u32_digits().next().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn fixed_width_matches_bigint(x in any::<u64>(), n in 1u32..100_000) {
            prop_assert_eq!(partition_u64(x, n), partition_big(BigUint::from(x), n));
        }

        #[test]
        fn short_strings_match_bigint(s in "\\PC{0,8}", n in 1u32..1000) {
            let fast = partition_for(&Key::Str(s.clone()), n);
            prop_assert_eq!(fast, partition_big(BigUint::from_bytes_be(s.as_bytes()), n));
        }
    }

    #[test]
    fn extremes() {
        assert_eq!(partition_u64(u64::MAX, u32::MAX), partition_big(BigUint::from(u64::MAX), u32::MAX));
        assert_eq!(partition_for(&Key::Int(5), 1), 0);
        assert_eq!(partition_for(&Key::Int(5), 0), 0);
    }
}
