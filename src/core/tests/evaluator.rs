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
