//! What GTR goes on to after a run that a win the plan speculates on has ended: the run commits
//! (re-parses its best bytes) and the algorithm goes on from the run's template and level over
//! the new tree. [`Successor`](super::Successor) does this for the current run; a [`Tail`] does
//! it for the runs the plan reaches past it (GTR's later templates and levels), so that the plan
//! can go on past a win there too, rather than stop: on a small file whose tests are slow (a
//! cluster), most of the reduction's likely futures go through such wins.

use super::{Lookahead, Origin};
use crate::engine::{Reducer, View};
use crate::judge::key;
use std::cell::{Cell, OnceCell};
use std::rc::Rc;

/// What the algorithm does once a run from `Origin` has changed the tree, if the tree is then
/// the one in `View`: the steps that follow while every candidate fails.
pub(crate) type Continue<'c> = &'c dyn Fn(&Reducer<'_>, View<'_>, Origin) -> Option<Lookahead>;

/// How the tails of one [`Successor`](super::Successor)'s steps are built, and what they may
/// still cost: each is a parse of a file ahead of any commit, made for a branch the plan finds
/// likely enough ([`TAIL_CHANCE`]), and at most [`TAIL_BYTES`] of text is parsed for them.
pub(crate) struct Tails<'c> {
    build: Continue<'c>,
    /// The bytes that may still be parsed.
    budget: Cell<usize>,
}

impl<'c> Tails<'c> {
    pub(crate) fn new(build: Continue<'c>) -> Tails<'c> {
        Tails {
            build,
            budget: Cell::new(TAIL_BYTES),
        }
    }
}

/// A tail is worked out only on a branch at least this likely: below, its parse would cost more
/// than the tests it could start are worth.
const TAIL_CHANCE: f64 = 0.02;

/// At most this much text is parsed ahead for the tails of one successor (a parse's tree takes
/// many times its text).
const TAIL_BYTES: usize = 1 << 20;

/// What follows a run of GTR's from `origin` that ended with the best bytes `best` (see the
/// module doc), built when a likely enough branch first asks for it.
pub(super) struct Tail {
    origin: Origin,
    best: Vec<u8>,
    built: OnceCell<Option<Rc<Lookahead>>>,
}

impl Tail {
    pub(super) fn new(origin: Origin, best: Vec<u8>) -> Tail {
        Tail {
            origin,
            best,
            built: OnceCell::new(),
        }
    }

    /// The steps, if they have been built (and are known).
    pub(super) fn built(&self) -> Option<&Rc<Lookahead>> {
        self.built.get()?.as_ref()
    }

    /// The steps, built now if they were not, on a branch of chance `chance` that is likely
    /// enough, while `tails` allows it.
    pub(super) fn get(
        &self,
        r: &Reducer<'_>,
        tails: Option<&Tails<'_>>,
        chance: f64,
    ) -> Option<&Rc<Lookahead>> {
        if let Some(built) = self.built.get() {
            return built.as_ref();
        }
        let tails = tails?;
        let left = tails.budget.get();
        if chance < TAIL_CHANCE || left < self.best.len() {
            return None;
        }
        tails.budget.set(left - self.best.len());
        let built = r.parse_ahead(&self.best, key(&self.best)).and_then(|p| {
            let mut steps = (tails.build)(r, p.view(), self.origin)?;
            steps.parsed = Some(Rc::new(p));
            Some(Rc::new(steps))
        });

        self.built.get_or_init(|| built).as_ref()
    }
}
