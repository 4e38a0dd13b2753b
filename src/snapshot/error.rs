//! The snapshot layer's one error type: where, and what is wrong, in one line.

/// A bad snapshot: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SnapshotError {
    pub message: String,
}

pub(super) fn err(message: impl Into<String>) -> SnapshotError {
    SnapshotError {
        message: message.into(),
    }
}
