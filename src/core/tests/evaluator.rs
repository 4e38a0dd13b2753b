//! An [`Evaluator`] writing sync after sync over one decision gives what a fresh evaluation
//! gives: the decision keeps nothing of the sync before.

use super::super::*;
use super::fixtures::*;

fn cpu_input(current: i32, milli: i64) -> Input {
    InputBuilder::new(current)
        .metric(cpu(50))
        .busy_pods(current as usize, milli)
        .build()
}

#[test]
fn a_decision_written_over_another_keeps_nothing_of_it() {
    // The first sync: full detail, a behavior, another release and tolerance.
    let mut first = cpu_input(4, 900);
    first.hpa.behavior = Some(Behavior::default());
    first.settings = Settings::for_version(KubeVersion { minor: 30 });
    first.settings.tolerance = 0.2;
    first.hpa.max_replicas = 7;
    // The second: brief, no behavior, the default settings, another HPA.
    let mut second = cpu_input(3, 200);
    second.hpa.name = "api".into();
    second.history.recommendations.push(Recommendation {
        time: now(),
        replicas: 3,
    });
    for detail in [Detail::Brief, Detail::Numbers] {
        second.detail = detail;
        let mut evaluator = Evaluator::new();
        let mut d = Decision::default();
        evaluator.evaluate_into(&first, &mut d);
        evaluator.evaluate_into(&second, &mut d);
        let fresh = evaluate(&second);
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            serde_json::to_value(&fresh).unwrap(),
            "{detail:?}"
        );
        assert_eq!(d.settings, second.settings);
        assert_eq!(d.behavior, None);
        // A numbers-only decision does not copy the history it started from.
        let given = match detail {
            Detail::Numbers => History::default(),
            _ => second.history.clone(),
        };
        assert_eq!(d.history.given, given, "{detail:?}");
    }
}

/// Under a spec generation the names, behavior and settings are written once, and every sync
/// still gives what a fresh evaluation gives.
#[test]
fn a_spec_generation_gives_the_fresh_answers() {
    let mut evaluator = Evaluator::new();
    evaluator.set_spec_generation(Some(7));
    let mut d = Decision::default();
    for (current, milli) in [(4, 900), (4, 200), (3, 600), (5, 100)] {
        let mut input = cpu_input(current, milli);
        input.hpa.behavior = Some(Behavior::default());
        input.detail = Detail::Numbers;
        evaluator.evaluate_into(&input, &mut d);
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            serde_json::to_value(evaluate(&input)).unwrap(),
            "{current} pods at {milli}m"
        );
    }
    // Another decision is written in full, whatever the generation.
    let mut other = Decision::default();
    let input = cpu_input(2, 300);
    evaluator.evaluate_into(&input, &mut other);
    assert_eq!(other.name, input.hpa.name);
    assert_eq!(other.settings, input.settings);
}

/// A spec changed under the same generation breaks the caller's promise: debug builds say so.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "spec generation")]
fn a_spec_changed_under_the_same_generation_is_caught() {
    let mut evaluator = Evaluator::new();
    evaluator.set_spec_generation(Some(7));
    let mut d = Decision::default();
    let mut input = cpu_input(4, 900);
    evaluator.evaluate_into(&input, &mut d);
    input.settings.tolerance = 0.3;
    evaluator.evaluate_into(&input, &mut d);
}

/// Conditions carried from one sync into the next (as `simulate` does) give what a fresh
/// evaluation of the same input gives.
#[test]
fn carried_conditions_give_the_fresh_answers() {
    let mut evaluator = Evaluator::new();
    let mut d = Decision::default();
    let mut conditions = Vec::new();
    for (i, (current, milli)) in [(4, 900), (4, 900), (8, 100), (8, 400), (3, 50)]
        .into_iter()
        .enumerate()
    {
        let mut input = cpu_input(current, milli);
        input.detail = Detail::Numbers;
        input.hpa.conditions = std::mem::take(&mut conditions);
        evaluator.set_conditions_carried(i > 0);
        evaluator.evaluate_into(&input, &mut d);
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            serde_json::to_value(evaluate(&input)).unwrap(),
            "sync {i}: {current} pods at {milli}m"
        );
        conditions = d.conditions.clone();
        for c in &mut conditions {
            c.set_this_sync = false;
        }
    }
}

/// Conditions said to be carried that the decision does not hold break the caller's promise:
/// debug builds say so.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "the caller's promise")]
fn conditions_not_carried_are_caught() {
    let mut evaluator = Evaluator::new();
    let mut d = Decision::default();
    let mut input = cpu_input(4, 900);
    input.detail = Detail::Numbers;
    evaluator.evaluate_into(&input, &mut d);
    evaluator.set_conditions_carried(true);
    evaluator.evaluate_into(&input, &mut d);
}
