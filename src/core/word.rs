//! A condition's type, status or reason: one of the controller's own words, or any other text
//! (a status written by another release or by hand).
//!
//! A sync reads the conditions of the last status, sets some of them and writes them back, and
//! `simulate` does this hundreds of thousands of times. The controller's words are kept as
//! `&'static str` (the same text in the same place), so that carrying a condition is a copy of
//! a pointer and comparing two of them is, most of the time, comparing two pointers.

use std::borrow::Cow;
use std::fmt;

use super::compare::same_text;

/// A word of a condition.
#[derive(Clone)]
pub struct Word(Cow<'static, str>);

/// The words the controller writes, so that a status read from a cluster or a file carries the
/// same `&'static str`s as the conditions a sync sets.
const KNOWN: &[&str] = &[
    "AbleToScale",
    "ScalingActive",
    "ScalingLimited",
    "ScaledToZero",
    "True",
    "False",
    "Unknown",
    "SucceededGetScale",
    "FailedGetScale",
    "SucceededRescale",
    "FailedUpdateScale",
    "ReadyForNewScale",
    "ScaleUpStabilized",
    "ScaleDownStabilized",
    "ValidMetricFound",
    "InvalidSelector",
    "AmbiguousSelector",
    "ScalingDisabled",
    "DesiredWithinRange",
    "TooFewReplicas",
    "TooManyReplicas",
    "ScaleUpLimit",
    "ScaleDownLimit",
    "NotScaledToZero",
    "FailedGetResourceMetric",
    "FailedGetContainerResourceMetric",
    "FailedGetPodsMetric",
    "FailedGetObjectMetric",
    "FailedGetExternalMetric",
    "InvalidMetricSourceType",
];

impl Word {
    /// One of the controller's words (no copy).
    pub const fn of(s: &'static str) -> Word {
        Word(Cow::Borrowed(s))
    }

    /// Any text; a word the controller writes is kept as its `&'static str`.
    pub fn new(s: &str) -> Word {
        match KNOWN.iter().find(|k| **k == s) {
            Some(k) => Word::of(k),
            None => Word(Cow::Owned(s.to_string())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl PartialEq for Word {
    fn eq(&self, other: &Word) -> bool {
        same_text(self.as_str(), other.as_str())
    }
}

impl Eq for Word {}

impl PartialEq<str> for Word {
    fn eq(&self, other: &str) -> bool {
        same_text(self.as_str(), other)
    }
}

impl PartialEq<&str> for Word {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl PartialEq<String> for Word {
    fn eq(&self, other: &String) -> bool {
        self == other.as_str()
    }
}

impl From<&str> for Word {
    fn from(s: &str) -> Word {
        Word::new(s)
    }
}

impl From<String> for Word {
    fn from(s: String) -> Word {
        match KNOWN.iter().find(|k| **k == s) {
            Some(k) => Word::of(k),
            None => Word(Cow::Owned(s)),
        }
    }
}

impl fmt::Debug for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Word {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl schemars::JsonSchema for Word {
    fn schema_name() -> Cow<'static, str> {
        String::schema_name()
    }

    fn inline_schema() -> bool {
        String::inline_schema()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_word_is_the_controller_s_own_text_and_any_other_is_kept() {
        let read = Word::new(&String::from("ScalingActive"));
        let set = Word::of("ScalingActive");
        assert_eq!(read, set);
        assert_eq!(
            read.as_str().as_ptr(),
            Word::new("ScalingActive").as_str().as_ptr()
        );
        let other = Word::from(String::from("SomethingElse"));
        assert_eq!(other, "SomethingElse");
        assert_ne!(other, set);
        assert_eq!(Word::new(""), "");
        assert_eq!(format!("{set} {set:?}"), "ScalingActive \"ScalingActive\"");
        assert_eq!(
            serde_json::to_string(&vec![set, other]).unwrap(),
            r#"["ScalingActive","SomethingElse"]"#
        );
    }
}
