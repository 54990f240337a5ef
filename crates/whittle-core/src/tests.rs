//! Tests of the engine and the algorithms on a small in-process tree format and in-process
//! oracles.

mod algorithms;
mod below;
mod counted_gate;
mod journal;
mod lists;
mod load;
mod merge;
mod nest;
mod oracle;
mod plan;
mod pool;
mod reduction;
mod refused;
mod render;
mod slice;
mod tail;
mod timeout;
mod toy;
mod untried;
