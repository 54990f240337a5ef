//! What GTR goes on to after a run that a win the plan speculates on has ended: the run commits
//! (re-parses its best bytes) and the algorithm goes on from the run's template and level over
//! the new tree. [`Successor`](super::Successor) does this for the current run; a [`Tail`] does
//! it for the runs the plan reaches past it (GTR's later templates and levels), so that the plan
//! can go on past a win there too, rather than stop: on a small file whose tests are slow (a
//! cluster), most of the reduction's likely futures go through such wins.

use super::{Lookahead, Origin};
use crate::edit::Edits;
use crate::engine::{Parsed, Reducer, View};
use crate::judge::key;
use std::cell::{Cell, OnceCell};
use std::rc::Rc;

/// What the algorithm does once a run from `Origin` has changed the tree, if the tree is then
/// the one in `View`: the steps that follow while every candidate fails.
pub(crate) type Continue<'c> = &'c dyn Fn(&Reducer<'_>, View<'_>, Origin) -> Option<Lookahead>;

/// How the tails of one [`Successor`](super::Successor)'s steps are built, and what they may
/// still cost: each is a rendering and a parse of a file ahead of any commit, made for a branch
/// the plan finds likely enough ([`TAIL_CHANCE`]); at most [`TAILS`] of them, of at most
/// [`TAIL_BYTES`] of text in all.
pub(crate) struct Tails<'c> {
    build: Continue<'c>,
    /// The tails and the bytes that may still be parsed.
    budget: Cell<(usize, usize)>,
}

impl<'c> Tails<'c> {
    pub(crate) fn new(build: Continue<'c>) -> Tails<'c> {
        Tails {
            build,
            budget: Cell::new((TAILS, TAIL_BYTES)),
        }
    }
}

/// A tail is worked out only on a branch at least this likely: the test pool starts no
/// candidate less likely than 5 %, and a tail's candidates are no likelier than its branch.
const TAIL_CHANCE: f64 = 0.05;

/// At most this many tails are built for one successor, of at most this much text in all (a
/// parse's tree takes many times its text).
const TAILS: usize = 16;
const TAIL_BYTES: usize = 1 << 20;

/// What follows a run of GTR's from `origin` that ended with the edits `edits` over the tree of
/// `over` (`None`: the current one), see the module doc; built when a likely enough branch
/// first asks for it.
pub(super) struct Tail {
    origin: Origin,
    edits: Edits,
    over: Option<Rc<Parsed>>,
    built: OnceCell<Option<Rc<Lookahead>>>,
}

impl Tail {
    pub(super) fn new(origin: Origin, edits: Edits, over: Option<Rc<Parsed>>) -> Tail {
        Tail {
            origin,
            edits,
            over,
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
        let (count, bytes) = tails.budget.get();
        if chance < TAIL_CHANCE || count == 0 {
            return None;
        }
        let doc = self.over.as_ref().map_or(r.doc(), |p| &p.doc);
        let mut best = Vec::new();
        r.format().render(doc, &self.edits, &mut best);
        if best.len() > bytes {
            // Past the budget, which only shrinks: not built, now or later.
            return self.built.get_or_init(|| None).as_ref();
        }
        tails.budget.set((count - 1, bytes - best.len()));
        let built = r.parse_ahead(&best, key(&best)).and_then(|p| {
            let mut steps = (tails.build)(r, p.view(), self.origin)?;
            steps.parsed = Some(Rc::new(p));
            Some(Rc::new(steps))
        });

        self.built.get_or_init(|| built).as_ref()
    }
}
