//! Redaction (filled below).
