//! The choices of a fuzz input: a small deterministic generator seeded by its control bytes.

/// xorshift64*, seeded from the control bytes of a fuzz input, so that the same input always
/// makes the same edits (a crash replays) and a mutation of those bytes makes other ones.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded by `control` (any length; all zeros is a valid seed).
    pub fn new(control: &[u8]) -> Rng {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for &b in control {
            seed = (seed ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// One element of `items`, if there is any.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        items.get(self.below(items.len()))
    }
}
