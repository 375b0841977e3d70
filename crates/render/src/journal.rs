//! What changed in an [`crate::InputStore`], in order: lets a discovery made earlier be
//! brought up to date ([`crate::rediscover`]) when the changes since are edits that cannot
//! change what is selected or resolved, instead of walking every object again.

use std::collections::VecDeque;

use crate::asset_key::AssetSource;
use crate::input_ref::InputRef;

/// One change to the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A ServiceMonitor, PodMonitor, Probe or ScrapeConfig replaced by a version with the
    /// same labels and the same Secret and ConfigMap references: it is selected by the same
    /// selectors and resolves the same values as before.
    MonitorEdited(InputRef),
    /// The fields our schemas lack were recorded anew for this object.
    UnknownFields(InputRef),
    /// A Secret or ConfigMap announced, changed, read, refused or deleted: it matters only to
    /// the agents that refer to it (the operator's own config Secrets change at every write).
    Data(InputRef),
    /// Anything else (an object added, deleted or relabelled, a reference changed, a
    /// namespace, a relist).
    Other,
}

impl Change {
    pub(crate) fn data(source: AssetSource, namespace: &str, name: &str) -> Self {
        Change::Data(InputRef::new(source.kind(), namespace, name))
    }
}

/// The store's changes, each numbered; the latest [`Journal::CAPACITY`] are kept.
#[derive(Debug, Clone, Default)]
pub struct Journal {
    /// The number the next change gets.
    next: u64,
    recent: VecDeque<(u64, Change)>,
}

impl Journal {
    /// Changes kept: far more than arrive between two reconciles of an agent (which are at
    /// most a moment apart); an older discovery is made again from scratch.
    const CAPACITY: usize = 4096;

    /// The store's revision: how many changes it has had.
    pub fn revision(&self) -> u64 {
        self.next
    }

    pub(crate) fn record(&mut self, change: Change) {
        if self.recent.len() == Self::CAPACITY {
            self.recent.pop_front();
        }
        self.recent.push_back((self.next, change));
        self.next += 1;
    }

    /// The changes after `revision`, in order; `None` when some of them are no longer kept.
    pub fn since(&self, revision: u64) -> Option<impl Iterator<Item = &Change>> {
        let first_kept = self.recent.front().map_or(self.next, |(n, _)| *n);
        (revision >= first_kept && revision <= self.next).then(|| {
            self.recent
                .iter()
                .skip((revision - first_kept) as usize)
                .map(|(_, change)| change)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input_ref::Kind;

    fn edited(name: &str) -> Change {
        Change::MonitorEdited(InputRef::new(Kind::ServiceMonitor, "ns", name))
    }

    #[test]
    fn the_changes_after_a_revision_come_in_order() {
        let mut journal = Journal::default();
        journal.record(edited("a"));
        let at = journal.revision();
        journal.record(edited("b"));
        journal.record(Change::Other);
        let since: Vec<_> = journal.since(at).expect("kept").cloned().collect();
        assert_eq!(since, vec![edited("b"), Change::Other]);
        assert_eq!(journal.since(journal.revision()).expect("kept").count(), 0);
    }

    #[test]
    fn a_revision_whose_changes_are_no_longer_kept_has_none() {
        let mut journal = Journal::default();
        for _ in 0..=Journal::CAPACITY {
            journal.record(edited("a"));
        }
        assert!(journal.since(0).is_none());
        assert_eq!(journal.since(1).expect("kept").count(), Journal::CAPACITY);
        assert!(journal.since(journal.revision() + 1).is_none());
    }
}
