//! The published JSON Schema of the contract ([`crate::output::contract`]): generated from the
//! documents' types, with each kind's body filled in by the feature that computes it. It sits
//! above the features (it names their types); nothing in the program depends on it — the tests
//! compare it with `schema/kubectl-hpa.v1.schema.json` (`UPDATE_SCHEMA=1` rewrites the file).

use serde_json::{json, Map, Value};

use crate::explain::fleet::FleetItem;
use crate::explain::live::LiveComparison;
use crate::history::ScaleHistory;
use crate::migrate::report::Report;
use crate::output::contract::{
    Document, ExplanationBody, FleetBody, Kind, SimulationSchema, WatchBody, API_VERSION,
};
use crate::simulate::json::{JsonConfig, JsonLoad, JsonRow, JsonWorld};
use crate::simulate::summary::Summary;

/// The JSON Schema (draft 2020-12) of every document: `oneOf` the kinds, each one's `apiVersion`
/// and `kind` constant.
pub fn schema() -> Value {
    let mut g = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let refs = [
        g.subschema_for::<Document<ExplanationBody<'static, LiveComparison>>>(),
        g.subschema_for::<Document<FleetBody<'static, FleetItem>>>(),
        g.subschema_for::<Document<WatchBody<'static>>>(),
        g.subschema_for::<Document<&'static FleetItem>>(),
        g.subschema_for::<Document<
            SimulationSchema<
                JsonWorld,
                JsonLoad<'static>,
                JsonConfig<'static>,
                JsonRow<'static>,
                Summary,
            >,
        >>(),
        g.subschema_for::<Document<&'static Report>>(),
        g.subschema_for::<Document<&'static ScaleHistory>>(),
    ];
    let mut defs: Map<String, Value> = g.take_definitions(true);
    if let Some(p) = defs
        .get_mut("EmbeddedExplanation")
        .and_then(|d| d.get_mut("properties"))
        .and_then(Value::as_object_mut)
    {
        p.insert("apiVersion".into(), json!({"const": API_VERSION}));
        p.insert("kind".into(), json!({"const": Kind::Explanation.as_str()}));
    }
    let mut one_of = Vec::new();
    for (kind, r) in Kind::ALL.iter().zip(refs) {
        let name = kind.as_str();
        let mut doc = match r.get("$ref").and_then(Value::as_str) {
            Some(p) => defs
                .remove(p.trim_start_matches("#/$defs/"))
                .unwrap_or(Value::Null),
            None => r.to_value(),
        };
        if let Some(props) = doc.get_mut("properties").and_then(Value::as_object_mut) {
            props.insert("apiVersion".into(), json!({"const": API_VERSION}));
            props.insert("kind".into(), json!({"const": name}));
        }
        if let Some(o) = doc.as_object_mut() {
            o.insert("title".into(), json!(name));
        }
        defs.insert(name.into(), doc);
        one_of.push(json!({"$ref": format!("#/$defs/{name}")}));
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("{API_VERSION}/schema"),
        "title": "kubectl-hpa JSON contract",
        "description": format!("Every JSON/YAML document of kubectl-hpa: apiVersion {API_VERSION}, one kind each. Generated from the output types (see README, JSON contract); do not edit."),
        "oneOf": one_of,
        "$defs": defs,
    })
}

/// The schema as the committed file holds it: pretty JSON and a final newline.
pub fn schema_text() -> String {
    serde_json::to_string_pretty(&schema()).unwrap_or_default() + "\n"
}
