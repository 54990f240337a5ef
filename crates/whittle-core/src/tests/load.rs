//! The room for speculative tests ([`crate::load`]).

use crate::load::{Load, Times, busy_share, next_room, parse_times, sampled};
use std::time::Duration;

#[test]
fn the_processors_times_are_read_from_the_first_line_of_proc_stat() {
    // A real /proc/stat head: user nice system idle iowait irq softirq steal guest guest_nice.
    let stat = "cpu  4705 356 584 3699 23 0 32 7 11 0\ncpu0 1393 280 334 1789 11 0 17 3 5 0\n";
    // Busy: all but idle (3 699) and iowait (23) of the first eight, 4705+356+584+0+32+7.
    assert_eq!(
        parse_times(stat),
        Some(Times {
            busy: 5684,
            total: 9406
        })
    );
    assert_eq!(parse_times("intr 1 2 3\n"), None);
    assert_eq!(parse_times("cpu  1 2 x 4 5\n"), None);
    assert_eq!(parse_times(""), None);
}

#[test]
fn the_busy_share_is_of_the_time_between_two_readings() {
    let before = Times {
        busy: 100,
        total: 400,
    };
    let after = Times {
        busy: 190,
        total: 500,
    };
    assert_eq!(busy_share(before, after), Some(0.9));
    assert_eq!(busy_share(after, after), None);
    assert_eq!(busy_share(after, before), None);
}

#[test]
fn the_room_shrinks_while_the_processors_are_busy_and_grows_back_while_they_idle() {
    // -j 64 on 2 processors: a quarter less per busy reading, never below the 2 processors.
    assert_eq!(next_room(64, Some(0.95), 64, 2), 48);
    assert_eq!(next_room(48, Some(0.9), 64, 2), 36);
    assert_eq!(next_room(3, Some(1.0), 64, 2), 2);
    assert_eq!(next_room(2, Some(1.0), 64, 2), 2);
    // Between the two thresholds it stays; below the lower one it grows by 64 / 16, up to -j.
    assert_eq!(next_room(36, Some(0.8), 64, 2), 36);
    assert_eq!(next_room(36, Some(0.5), 64, 2), 40);
    assert_eq!(next_room(62, Some(0.1), 64, 2), 64);
    // No time passed: no change.
    assert_eq!(next_room(36, None, 64, 2), 36);
}

#[test]
fn a_sample_of_the_load_is_six_ticks_or_the_longest_wait() {
    let at = |total| Times { busy: 0, total };
    let ms = Duration::from_millis;
    // 2 processors, 20 ms: 4 ticks, not yet; 30 ms: 6, enough.
    assert!(!sampled(at(1000), at(1004), ms(20)));
    assert!(sampled(at(1000), at(1006), ms(30)));
    // 64 processors: the first reading, 10 ms later, holds 64 ticks.
    assert!(sampled(at(1000), at(1064), ms(10)));
    // Ticks that do not come (a stalled counter): the longest wait ends the sample.
    assert!(!sampled(at(1000), at(1000), ms(90)));
    assert!(sampled(at(1000), at(1000), Load::SAMPLE));
}
