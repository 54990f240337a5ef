//! The step that follows a run, built on the tree the run's commit will make (a parse of its
//! best bytes, made ahead of the commit: the speculative commit), and handed to the test pool
//! and the plan lazily, when a worker is idle ([`Lazy`]).

use super::{Continue, Lookahead, Tails};
use crate::engine::{Parsed, Reducer, View};
use crate::judge::key;
use crate::plan::Then;
use std::cell::RefCell;
use std::rc::Rc;

/// Builds the step that follows a run, over the tree in `View`; the flag says whether the run
/// changed the tree (the view is then a parse of the best bytes).
pub(crate) type Build<'b> = &'b dyn Fn(&Reducer<'_>, View<'_>, bool) -> Option<Lookahead>;

/// The step that follows a run (see the module doc), built when the test pool asks for it through
/// [`Lazy`] (a worker is idle at a step that may be the run's last): over the current tree while
/// the run's best bytes are the current document's, over their parse once they are not. The plan
/// (`plan.rs`) also asks for it on a branch where the run ends with a candidate that has not won
/// yet: then over that candidate's parse. Each is built once (the parse once per bytes, for the
/// last few bytes asked for).
pub(crate) struct Successor<'b> {
    build: Option<Build<'b>>,
    /// How the tails of GTR's runs are built, where the algorithm is GTR.
    tails: Option<Tails<'b>>,
    unchanged: Option<Option<Lookahead>>,
    /// The steps built over parses of other bytes, by the bytes' key, the latest last.
    changed: Vec<(u128, Option<Lookahead>)>,
}

/// How many parses ahead of a commit a [`Successor`] keeps.
const PARSES_KEPT: usize = 4;

impl<'b> Successor<'b> {
    /// No next step is known (or nobody is idle to start it: one worker).
    pub(crate) fn none() -> Successor<'static> {
        Successor {
            build: None,
            tails: None,
            unchanged: None,
            changed: Vec::new(),
        }
    }

    /// `step`, already made over the current tree (the reduction's opening: what the algorithm
    /// tests first); nothing is known over another tree.
    pub(crate) fn known(step: Lookahead) -> Successor<'static> {
        Successor {
            build: None,
            tails: None,
            unchanged: Some(Some(step)),
            changed: Vec::new(),
        }
    }

    /// The step `build` makes, if the pool has workers that could start it.
    pub(crate) fn new(r: &Reducer<'_>, build: Build<'b>) -> Successor<'b> {
        Successor {
            build: r.speculates().then_some(build),
            tails: None,
            unchanged: None,
            changed: Vec::new(),
        }
    }

    /// With what GTR does once a run past the current one has changed the tree (`then`): the
    /// plan then goes on past the wins of those runs ([`super::Tail`]). Only with more workers
    /// than processors: each tail is a parse in whittle itself, which with no more workers than
    /// processors takes a processor from the tests (on this 2-core machine at `-j 2`, the bundled
    /// JavaScript case's time outside its tests went from 0.6 to 2.7 s with them).
    pub(crate) fn continued(mut self, r: &Reducer<'_>, then: Continue<'b>) -> Successor<'b> {
        self.tails = (self.build.is_some() && r.oversubscribed()).then(|| Tails::new(then));
        self
    }

    /// Whether it can build a next step at all (a pool's idle workers could start it).
    pub(crate) fn builds(&self) -> bool {
        self.build.is_some() || self.unchanged.is_some()
    }

    /// The next step if the run ends with `best` (`None`: the reducer's best bytes now), and
    /// how the tails of its runs are built.
    pub(crate) fn get(
        &mut self,
        r: &Reducer<'_>,
        best: Option<&[u8]>,
    ) -> Option<(&Lookahead, Option<&Tails<'b>>)> {
        let best = best.unwrap_or(r.best());
        if best == r.committed() {
            if self.unchanged.is_none() {
                self.unchanged = Some(self.build?(r, r.view(), false));
            }
            let step = self.unchanged.as_ref()?.as_ref()?;
            return Some((step, self.tails.as_ref()));
        }
        let build = self.build?;
        let k = key(best);
        let at = match self.changed.iter().position(|(c, _)| *c == k) {
            Some(at) => at,
            None => {
                let step = r.parse_ahead(best, k).and_then(|p| {
                    let mut step = build(r, p.view(), true)?;
                    step.parsed = Some(Rc::new(p));
                    Some(step)
                });
                if self.changed.len() >= PARSES_KEPT {
                    self.changed.remove(0);
                }
                self.changed.push((k, step));
                self.changed.len() - 1
            }
        };
        Some((self.changed[at].1.as_ref()?, self.tails.as_ref()))
    }

    /// The parse of `best` made ahead of the commit, if one was, for
    /// [`Reducer::commit_parsed`].
    pub(crate) fn into_parsed(self, best: &[u8]) -> Option<Parsed> {
        let k = key(best);
        let (_, step) = self.changed.into_iter().find(|(c, _)| *c == k)?;
        // What follows the step's wins shares its parse: dropped first.
        let Lookahead {
            parsed, children, ..
        } = step?;
        drop(children);
        Rc::try_unwrap(parsed?).ok()
    }
}

/// A [`Successor`] for the test pool's `failed` prefetch (`pool::Next`) and the plan: the pool
/// asks for it only when a worker is idle, so the parse ahead of a commit is made then, not at
/// every step.
pub(crate) struct Lazy<'s, 'b, 'r, 'a> {
    after: RefCell<&'s mut Successor<'b>>,
    r: &'r Reducer<'a>,
}

impl<'s, 'b, 'r, 'a> Lazy<'s, 'b, 'r, 'a> {
    pub(crate) fn new(after: &'s mut Successor<'b>, r: &'r Reducer<'a>) -> Self {
        Lazy {
            after: RefCell::new(after),
            r,
        }
    }

    /// How many candidates the next step has (0 if there is none).
    pub(crate) fn count(&self) -> usize {
        self.count_after(None, &[])
    }

    /// Renders candidate `i` of the next step; `false` if there is none.
    pub(crate) fn render(&self, i: usize, out: &mut Vec<u8>) -> bool {
        self.render_after(None, &[], i, out)
    }
}

impl Then for Lazy<'_, '_, '_, '_> {
    fn count_after(&self, best: Option<&[u8]>, won: &[usize]) -> usize {
        self.count_ahead(best, won, 0.0)
    }

    fn count_ahead(&self, best: Option<&[u8]>, won: &[usize], chance: f64) -> usize {
        let mut after = self.after.borrow_mut();
        (after.get(self.r, best)).map_or(0, |(a, tails)| {
            a.count_after_wins(self.r, tails, won, chance)
        })
    }

    fn render_after(
        &self,
        best: Option<&[u8]>,
        won: &[usize],
        i: usize,
        out: &mut Vec<u8>,
    ) -> bool {
        let mut after = self.after.borrow_mut();
        (after.get(self.r, best))
            .is_some_and(|(a, tails)| a.render_after_wins(self.r, tails, won, i, out))
    }

    fn class_after(&self, best: Option<&[u8]>, won: &[usize], i: usize) -> Option<usize> {
        let mut after = self.after.borrow_mut();
        let (a, tails) = after.get(self.r, best)?;
        a.class_after_wins(self.r, tails, won, i)
    }
}
