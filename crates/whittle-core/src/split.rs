//! ddmin's steps: a configuration split into parts ([`Split`]), the candidates that remove one
//! part each, the step a win or a failure leads to, and what failed candidates say about those
//! to come ([`Failures`]). A leaf of the engine: ddmin runs these steps, and the look-ahead and
//! the plan build them ahead of it.

use crate::edit::{Edit, Edits};
use crate::tree::NodeId;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::rc::Rc;

/// The edits that apply every item except those `kept` (sorted) on top of `base`.
pub(crate) fn edits_keeping(base: &Edits, items: &[(NodeId, Edit)], kept: &[usize]) -> Edits {
    let mut k = kept.iter().peekable();
    let applied = items.iter().enumerate().filter_map(|(i, &item)| {
        if k.peek() == Some(&&i) {
            k.next();
            None
        } else {
            Some(item)
        }
    });
    base.overlaid(applied.collect())
}

/// One step of ddmin: the configuration split into `n` parts, and its candidates, each the
/// configuration without one part (its complement), in the order the scan tries them: from part
/// `from` on, round to the part before it.
pub(crate) struct Split {
    pub(crate) config: Vec<usize>,
    pub(crate) parts: Vec<Range<usize>>,
    from: usize,
    /// A hash of `config`, `n`, `from` and whether the parts are by size, which tells the run's
    /// steps apart.
    pub(crate) id: u64,
    /// `config` as a bit set over the run's items.
    pub(crate) bits: Vec<u64>,
    /// The sizes of the run's items, where its parts hold about equal shares of their bytes
    /// rather than equal numbers of items ([`Split::by_size_from`]); every step of the run
    /// has them.
    sizes: Option<Rc<[usize]>>,
    /// With `sizes`: the run is not split into parts of fewer bytes than this on average
    /// ([`Split::by_size_from`]); 0 for ddmin's finest split.
    floor: usize,
    /// With a floor: the bytes of `config`'s items (0 without one).
    bytes: usize,
    /// Whether the step after a failed one resumes where the scan was ([`Split::resuming`]);
    /// every step of the run has it.
    resumes: bool,
}

impl Split {
    /// The step over `config` at granularity `n` (at most one part per item), starting at `from`,
    /// in parts of as many items each (the papers' ddmin).
    pub(crate) fn new(config: Vec<usize>, n: usize, from: usize) -> Split {
        Split::with_sizes((None, 0), config, n, from)
    }

    /// [`Split::new`], in parts of about as many bytes each where `sizes` (of every item of the
    /// run) are given ([`parts_by_size`]); each part holds one item at least, so `n` parts of `n`
    /// items are still one item each.
    fn with_sizes(
        (sizes, floor): (Option<Rc<[usize]>>, usize),
        config: Vec<usize>,
        n: usize,
        from: usize,
    ) -> Split {
        let n = n.min(config.len());
        // Where the items are all of a size, parts of as many bytes are parts of as many items:
        // the papers' parts then, to the item.
        let uneven = |sizes: &[usize]| {
            let first = item_size(sizes, config[0]);
            config.iter().any(|&i| item_size(sizes, i) != first)
        };
        let parts = match &sizes {
            Some(sizes) if n > 0 && uneven(sizes) => parts_by_size(&config, n, sizes),
            _ => (0..n)
                .map(|i| (i * config.len() / n)..((i + 1) * config.len() / n))
                .collect(),
        };
        // At n = 2 the complements are ddmin's two subsets, tried in the textbook's order: keep
        // the first half (remove part 1), then keep the second.
        let from = if n == 2 { 1 } else { from % n.max(1) };
        let mut h = rustc_hash::FxHasher::default();
        (&config, n, from, sizes.is_some(), floor).hash(&mut h);
        let bits = bit_set(config.last().map_or(0, |&l| l + 1), &config);
        let bytes = match &sizes {
            Some(sizes) if floor > 0 => config.iter().map(|&i| item_size(sizes, i)).sum(),
            _ => 0,
        };
        Split {
            id: h.finish(),
            bits,
            config,
            parts,
            from,
            sizes,
            floor,
            bytes,
            resumes: false,
        }
    }

    /// A step of the same run as this one (its parts by size if this one's are).
    pub(crate) fn of_run(&self, config: Vec<usize>, n: usize, from: usize) -> Split {
        let mut step = Split::with_sizes((self.sizes.clone(), self.floor), config, n, from);
        step.resumes = self.resumes;
        step
    }

    /// This step, in a run whose step after one that failed in every part resumes the scan
    /// where it was, with `resumes` (`auto`'s runs; the papers' start it at the first part). After a win the
    /// scan goes on from the part after the one removed (Hodován and Kiss); when every part then
    /// fails, the finer step starts at the first half of the part the scan started from, so
    /// the position carries over a change of granularity too: what a test lets go often lies
    /// together (the elements near the end of a list that the test needs only the start of),
    /// and the scan had got there.
    pub(crate) fn resuming(mut self, resumes: bool) -> Split {
        self.resumes = resumes;
        self
    }

    /// The first step of a run over `len` items that starts at granularity `start` (at least 2,
    /// whatever an earlier run ended at).
    pub(crate) fn first(len: usize, start: usize) -> Split {
        Split::new((0..len).collect(), start.max(2), 0)
    }

    /// [`Split::by_size_from`] from two parts, without a floor.
    #[cfg(test)]
    pub(crate) fn by_size(sizes: Rc<[usize]>) -> Split {
        Split::by_size_from(sizes, 0, 2)
    }

    /// [`Split::first`] from `start` parts (at least 2; fewer where the floor allows fewer) over
    /// items of the given sizes, in parts of about as many bytes each: `auto`'s text rewrites and
    /// list moves, by the bytes each saves. A batch's rewrites differ in size by orders of
    /// magnitude (a declaration with all its uses beside a hundred one-line ones); in parts of
    /// as many rewrites, ddmin tries a large one alone only at the granularity where it also
    /// tries every small one alone, and by size it tries the large ones alone early, the small
    /// ones still in groups.
    ///
    /// With a `floor` (bytes; 0: none) the run is coarse: where all its parts fail and twice as
    /// many would save fewer than `floor` bytes each on average, it ends, keeping what is left,
    /// whose items not yet tried alone are left to a later run (see `lists::reduce_lists`).
    pub(crate) fn by_size_from(sizes: Rc<[usize]>, floor: usize, start: usize) -> Split {
        let config = (0..sizes.len()).collect();
        let halves = Split::with_sizes((Some(sizes), floor), config, 2, 0);
        let mut n = start.max(2);
        while n > 2 && halves.below_floor(n) {
            n /= 2;
        }
        if n == 2 {
            halves
        } else {
            halves.of_run(halves.config.clone(), n, 0)
        }
    }

    /// [`Split::by_size_from`] from two parts.
    #[cfg(test)]
    pub(crate) fn by_size_down_to(sizes: Rc<[usize]>, floor: usize) -> Split {
        Split::by_size_from(sizes, floor, 2)
    }

    pub(crate) fn count(&self) -> usize {
        self.parts.len()
    }

    /// The part candidate `i` removes.
    pub(crate) fn part(&self, i: usize) -> usize {
        (self.from + i) % self.parts.len()
    }

    /// How many candidates this step and the finer ones after it have, down to the finest split:
    /// the steps ddmin takes while every candidate fails.
    pub(crate) fn chain_len(&self) -> usize {
        let len = self.config.len();
        let mut n = self.parts.len();
        let mut total = n;
        while n < len && !self.below_floor(n * 2) {
            n = (n * 2).min(len);
            total += n;
        }
        total
    }

    /// The items candidate `i` of [`Split::chain_len`]'s candidates keeps.
    pub(crate) fn chain_kept(&self, i: usize) -> Option<Vec<usize>> {
        let (step, i) = self.chain_step(i)?;
        Some(step.as_ref().unwrap_or(self).kept(i))
    }

    /// How many parts the step of [`Split::chain_len`]'s candidate `i` has, and its index there.
    pub(crate) fn chain_place(&self, i: usize) -> Option<(usize, usize)> {
        let (step, i) = self.chain_step(i)?;
        Some((step.as_ref().unwrap_or(self).count(), i))
    }

    /// The step after [`Split::chain_len`]'s candidate `i` wins ([`Split::after_win`] of its
    /// step).
    pub(crate) fn chain_after_win(&self, i: usize) -> Option<Split> {
        let (step, i) = self.chain_step(i)?;
        Some(step.as_ref().unwrap_or(self).after_win(i))
    }

    /// The step of [`Split::chain_len`]'s candidate `i` (`None`: this one) and its index there.
    fn chain_step(&self, mut i: usize) -> Option<(Option<Split>, usize)> {
        if i < self.count() {
            return Some((None, i));
        }
        i -= self.count();
        let mut step = self.finer()?;
        while i >= step.count() {
            i -= step.count();
            step = step.finer()?;
        }
        Some((Some(step), i))
    }

    /// The step after this one if it fails: twice as many parts; `None` at the finest split,
    /// or where those parts would save fewer bytes than the run's floor on average.
    pub(crate) fn finer(&self) -> Option<Split> {
        let n = self.parts.len();
        // At two parts the scan starts at the second (the textbook's order), not at a win.
        let from = if self.resumes && n > 2 {
            2 * self.from
        } else {
            0
        };
        (n < self.config.len() && !self.below_floor(n * 2))
            .then(|| self.of_run(self.config.clone(), n * 2, from))
    }

    /// Whether a split of the configuration into `n` parts (at most one per item) would save
    /// fewer bytes than the run's floor on average.
    fn below_floor(&self, n: usize) -> bool {
        self.coarse() && self.bytes < self.floor * n.min(self.config.len())
    }

    /// Whether the run this step belongs to may end before its finest split.
    pub(crate) fn coarse(&self) -> bool {
        self.sizes.is_some() && self.floor > 0
    }

    /// The step after candidate `i` wins: at `n = 2` ddmin's reduce-to-subset (the half it
    /// kept, split in two); above, the configuration without the part, in `n - 1` parts, the
    /// scan resuming at the same part.
    pub(crate) fn after_win(&self, i: usize) -> Split {
        let n = self.parts.len();
        if n == 2 {
            self.of_run(self.kept(i), 2, 0)
        } else {
            // n = 1 (one item left, and removing it won) leaves nothing: the run ends.
            let m = (n - 1).max(2);
            self.of_run(self.kept(i), m, self.part(i) % m)
        }
    }

    /// The items candidate `i` removes, as a bit set as long as [`Split::bits`].
    pub(crate) fn removed(&self, i: usize) -> Vec<u64> {
        let p = &self.parts[self.part(i)];
        let len = self.config.last().map_or(0, |&l| l + 1);
        bit_set(len, &self.config[p.clone()])
    }

    /// The items candidate `i` keeps.
    pub(crate) fn kept(&self, i: usize) -> Vec<usize> {
        let p = &self.parts[self.part(i)];
        let c = &self.config;
        c[..p.start].iter().chain(&c[p.end..]).copied().collect()
    }
}

/// What the failed candidates of a run say about those to come. A failed candidate removed a
/// set of items that holds one the test needs (if the test is monotone: the papers' assumption),
/// and a needed item is in every configuration after it. So a candidate that removes every item
/// of such a set still in its configuration fails too (weighing a candidate that removes most
/// of such a set by the share it keeps was measured and left out: `docs/algorithms.md`). The
/// papers' ddmin ([`crate::ddmin::Tested::All`]) still tests such candidates (it does not assume
/// the test monotone), but the plan does not plan for their wins: ddmin's run through a
/// granularity then branches on few candidates, and idle workers can start its steps several
/// wins ahead.
#[derive(Clone, Default)]
pub(crate) struct Failures {
    /// The items each failed candidate removed, as bit sets.
    removed: Vec<Vec<u64>>,
}

/// At most this many failures are kept (the oldest go first).
const FAILURES_CAP: usize = 1024;

impl Failures {
    /// 0 if a failure says candidate `i` of `s` fails (it removes every item of a failure left
    /// in its configuration), 1 if not.
    pub(crate) fn weight(&self, s: &Split, i: usize) -> f64 {
        // Most runs have no failures left to them by another ([`Failures::of_kept`]): the
        // plan asks this of every candidate it walks past, so no bit set is made for nothing.
        if self.removed.is_empty() {
            return 1.0;
        }
        let removed = s.removed(i);
        let rules_out = |f: &Vec<u64>| {
            let mut needed = false;
            for ((f, c), r) in f.iter().zip(&s.bits).zip(&removed) {
                let left = f & c;
                if left & !r != 0 {
                    return false;
                }
                needed |= left != 0;
            }
            needed
        };
        if self.removed.iter().any(rules_out) {
            0.0
        } else {
            1.0
        }
    }

    /// Keeps, of each failure, what is left of it in `config` (the configuration of the run's
    /// next step: every later one is inside it), and of those only the smallest: a failure
    /// whose items left hold all of another's says nothing more than that one.
    pub(crate) fn narrow(&mut self, config: &[u64]) {
        for f in &mut self.removed {
            f.truncate(config.len());
            for (f, c) in f.iter_mut().zip(config) {
                *f &= c;
            }
        }
        // Smallest first, so each is checked against those it could hold.
        self.removed.retain(|f| f.iter().any(|&w| w != 0));
        self.removed
            .sort_by_key(|f| f.iter().map(|w| w.count_ones()).sum::<u32>());
        self.removed.dedup();
        let mut kept: Vec<Vec<u64>> = Vec::with_capacity(self.removed.len());
        for f in self.removed.drain(..) {
            let holds = |g: &Vec<u64>| g.iter().zip(&f).all(|(g, f)| g & !f == 0);
            if !kept.iter().any(holds) {
                kept.push(f);
            }
        }
        self.removed = kept;
    }

    /// What the failures say of a run over the items `config` keeps, numbered anew from 0 (the
    /// next round's run over what this one kept): what is left of each failure in `config`.
    pub(crate) fn of_kept(&self, config: &[usize]) -> Failures {
        let mut of = Failures::default();
        for f in &self.removed {
            let mut bits = vec![0u64; config.len().div_ceil(64)];
            for (j, &x) in config.iter().enumerate() {
                if f.get(x / 64).is_some_and(|w| w & (1 << (x % 64)) != 0) {
                    bits[j / 64] |= 1 << (j % 64);
                }
            }
            if bits.iter().any(|&w| w != 0) {
                of.removed.push(bits);
            }
        }
        of
    }

    /// How many failures are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.removed.len()
    }

    pub(crate) fn add(&mut self, s: &Split, i: usize) {
        if self.removed.len() >= FAILURES_CAP {
            self.removed.remove(0);
        }
        self.removed.push(s.removed(i));
    }
}

/// `config` in `n` parts (`0 < n <= config.len()`) of about as many bytes each. Each part's
/// share is what the parts before it left, divided among the parts left: a part ends before
/// the item that would take it further past its share than it stays below it (a large item
/// starts a part of its own, and the part after it shares out what is left, so small items
/// next to a large one stay grouped), or where the items left are as many as the parts left.
fn parts_by_size(config: &[usize], n: usize, sizes: &[usize]) -> Vec<Range<usize>> {
    let total: usize = config.iter().map(|&i| item_size(sizes, i)).sum();
    let mut parts = Vec::with_capacity(n);
    let (mut start, mut part, mut before) = (0, 0, 0);
    for (k, &i) in config.iter().enumerate() {
        let w = item_size(sizes, i);
        let parts_left = n - parts.len();
        if k > start && parts_left > 1 {
            let must = config.len() - k == parts_left - 1;
            // part + w/2 > share, in whole numbers.
            let past_share = (2 * part + w) * parts_left > 2 * (total - before);
            if must || past_share {
                parts.push(start..k);
                (start, before, part) = (k, before + part, 0);
            }
        }
        part += w;
    }
    parts.push(start..config.len());
    parts
}

/// Item `i`'s size, an empty (or unknown) item counting as one byte.
fn item_size(sizes: &[usize], i: usize) -> usize {
    sizes.get(i).copied().unwrap_or(1).max(1)
}

/// `items` (each below `len`) as a bit set.
fn bit_set(len: usize, items: &[usize]) -> Vec<u64> {
    let mut bits = vec![0; len.div_ceil(64)];
    for &i in items {
        bits[i / 64] |= 1 << (i % 64);
    }
    bits
}
