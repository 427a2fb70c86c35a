//! When the console loop may draw. A frame is drawn as soon as what woke the loop has been
//! handled, so a key and the engine's answer to it (a search over a large catalog answers a few
//! milliseconds after the key) each show at once, rather than the answer waiting for the next
//! 16 ms frame. Only a flood is paced: at most two frames within any [`FRAME`].

use std::time::{Duration, Instant};

/// The window within which at most two frames are drawn.
pub const FRAME: Duration = Duration::from_millis(16);

/// The last two frames drawn.
#[derive(Debug, Default, Clone, Copy)]
pub struct Pacing {
    last: Option<Instant>,
    before: Option<Instant>,
}

impl Pacing {
    /// The earliest moment the next frame may be drawn (`now` or earlier: at once).
    pub fn due(&self, now: Instant) -> Instant {
        self.before.map_or(now, |t| t + FRAME)
    }

    /// Notes a frame drawn at `now`.
    pub fn drew(&mut self, now: Instant) {
        self.before = self.last;
        self.last = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_two_frames_are_drawn_at_once_and_a_third_within_the_frame_waits() {
        let start = Instant::now();
        let mut pacing = Pacing::default();
        assert!(pacing.due(start) <= start);
        pacing.drew(start);
        // The answer to the key that was just drawn: shown at once.
        let answer = start + Duration::from_millis(3);
        assert!(pacing.due(answer) <= answer);
        pacing.drew(answer);
        // A third change inside the same frame waits for the first frame's window to pass.
        let third = start + Duration::from_millis(5);
        assert_eq!(pacing.due(third), start + FRAME);
        pacing.drew(start + FRAME);
        // Once the loop has been idle for a frame, a key is drawn at once again.
        let later = start + FRAME * 3;
        assert!(pacing.due(later) <= later);
    }

    #[test]
    fn a_flood_is_drawn_at_most_twice_per_frame() {
        let start = Instant::now();
        let mut pacing = Pacing::default();
        let mut now = start;
        let mut frames = 0;
        // A change every millisecond for 160 ms, each drawn when due.
        while now < start + FRAME * 10 {
            if pacing.due(now) <= now {
                pacing.drew(now);
                frames += 1;
            }
            now += Duration::from_millis(1);
        }
        assert!(frames <= 20, "{frames} frames in 10 frame windows");
        assert!(
            frames >= 18,
            "{frames} frames: the pacing starved the flood"
        );
    }
}
