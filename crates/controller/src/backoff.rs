//! The one retry backoff of the controller: failed reconciles, failed Lease requests and failed
//! kubelet-object updates all wait by it. It is backon's exponential backoff (the crate
//! kube-runtime's own watcher backoff is built on), so the delays are computed by a well-kept
//! crate and each user only says where its delays start and stop. The watches keep
//! kube-runtime's backoff (`watches::RelistBackoff`), which is the same crate with jitter.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBackoff, ExponentialBuilder};

/// Doubling delays from `min` to `max`, never giving up, started afresh by [`Backoff::reset`].
/// No jitter: each user retries one thing of its own (one agent, one Lease, one Service), so
/// there is no herd to spread, and the delays stay what the logs and docs say.
#[derive(Debug)]
pub(crate) struct Backoff {
    builder: ExponentialBuilder,
    delays: ExponentialBackoff,
    max: Duration,
}

impl Backoff {
    pub(crate) fn new(min: Duration, max: Duration) -> Backoff {
        let builder = ExponentialBuilder::new()
            .with_min_delay(min)
            .with_max_delay(max)
            .with_factor(2.0)
            .without_max_times();
        Backoff {
            delays: builder.build(),
            builder,
            max,
        }
    }

    /// A failed reconcile of one agent: half a second, doubling to five minutes.
    pub(crate) fn reconcile() -> Backoff {
        Backoff::new(Duration::from_millis(500), Duration::from_secs(300))
    }

    /// The delay before the next attempt.
    pub(crate) fn next_delay(&mut self) -> Duration {
        // Without a maximum of attempts backon never ends the iteration; the cap stands in
        // should it ever.
        self.delays.next().unwrap_or(self.max)
    }

    /// Starts again from the shortest delay (after a success).
    pub(crate) fn reset(&mut self) {
        self.delays = self.builder.build();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_up_to_the_cap_and_start_again_after_a_reset() {
        let mut reconcile = Backoff::reconcile();
        let delays: Vec<Duration> = (0..12).map(|_| reconcile.next_delay()).collect();
        assert_eq!(delays[0], Duration::from_millis(500));
        assert_eq!(delays[1], Duration::from_secs(1));
        assert_eq!(delays[3], Duration::from_secs(4));
        assert_eq!(delays[11], Duration::from_secs(300));
        reconcile.reset();
        assert_eq!(reconcile.next_delay(), Duration::from_millis(500));

        let mut capped = Backoff::new(Duration::from_secs(1), Duration::from_secs(5));
        let delays: Vec<u64> = (0..5).map(|_| capped.next_delay().as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 5, 5]);
    }
}
