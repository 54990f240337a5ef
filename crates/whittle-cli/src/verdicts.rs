//! What decides a candidate's verdict besides its bytes: the options that reach the test. The
//! test's oracles are built from this struct alone, and the journal's header is this struct,
//! serialized field by field, so an option that changes verdicts cannot reach the test without
//! reaching the header too (a journal written with another value is refused rather than
//! answering with verdicts of another test). The test below derives its cases from the struct's
//! fields, so it covers a new field without being told.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use whittle::{Adaptive, CommandOracle, Guard, Timeout};
use whittle_core::GeneratorOracle;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Verdicts {
    /// `--test`, with relative paths made absolute (each test runs in a scratch directory).
    pub(crate) test: String,
    /// `--expect`: texts the test's output must hold (the test command is then wrapped).
    pub(crate) expect: Vec<String>,
    /// `--timeout`, or the adaptive policy without it.
    #[serde(with = "timeout_words")]
    pub(crate) timeout: Option<f64>,
    /// `--repeat`: runs per candidate.
    pub(crate) repeat: u32,
    /// The name the candidate has in the test's directory: the input's.
    #[serde(rename = "candidate file name")]
    pub(crate) candidate_file_name: String,
    /// `--generator`: the command that replays a trace.
    pub(crate) generator: Option<String>,
    /// `--align`, with a generator.
    pub(crate) align: Option<String>,
    /// With a generator: the name of the generated input the test sees (the output's).
    #[serde(rename = "generated file name")]
    pub(crate) generated_file_name: Option<String>,
}

impl Verdicts {
    /// The test command as it runs: with `--expect`, wrapped to look for the texts.
    pub(crate) fn command(&self) -> String {
        crate::expect::with_expectations(&self.test, &self.expect)
    }

    pub(crate) fn timeout(&self) -> Timeout {
        match self.timeout {
            Some(seconds) => Timeout::Fixed(Duration::from_secs_f64(seconds)),
            None => Timeout::Adaptive(Adaptive::default()),
        }
    }

    /// The test, and with `--generator` the generator that makes what it tests, every test
    /// run under `guard`.
    pub(crate) fn oracles(
        &self,
        cwd: &Path,
        guard: &Guard,
    ) -> (CommandOracle, Option<GeneratorOracle>) {
        let command = self.command();
        let timeout = self.timeout();
        let input = Path::new(&self.candidate_file_name);
        let test = CommandOracle::new(&command, input, timeout).guard(Some(guard.clone()));
        let generator = self.generator.as_ref().map(|g| {
            let generated = self.generated_file_name.as_deref().unwrap_or("output");
            let align = self.align.as_deref().unwrap_or("realign");
            GeneratorOracle::new(
                g,
                &command,
                input,
                Path::new(generated),
                timeout,
                align,
                cwd,
            )
            .guard(Some(guard.clone()))
        });
        (test, generator)
    }

    /// The journal header's settings: every field by its name, an unset one left out.
    pub(crate) fn settings(&self) -> BTreeMap<String, String> {
        let serde_json::Value::Object(fields) =
            serde_json::to_value(self).expect("plain data serializes")
        else {
            unreachable!("a struct serializes as an object")
        };
        fields
            .into_iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(s) => s,
                    v => v.to_string(),
                };
                (k, text)
            })
            .collect()
    }
}

/// `--timeout` as a journal header shows it: `30 s`, or `adaptive` when not given.
mod timeout_words {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(t: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&format!("{t} s")),
            None => s.serialize_str("adaptive"),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        let text = String::deserialize(d)?;
        if text == "adaptive" {
            return Ok(None);
        }
        text.strip_suffix(" s")
            .and_then(|t| t.parse().ok())
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("not a timeout: {text}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::{DeserializeOwned, Visitor};
    use serde_json::{Value, json};

    fn base() -> Verdicts {
        Verdicts {
            test: "/work/check.sh {}".to_string(),
            expect: vec![],
            timeout: None,
            repeat: 1,
            candidate_file_name: "crash.py".to_string(),
            generator: None,
            align: None,
            generated_file_name: None,
        }
    }

    /// The names of a struct's fields, as its derived `Deserialize` lists them: a deserializer
    /// that only records what `deserialize_struct` is asked for.
    fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
        struct Probe<'a>(&'a mut &'static [&'static str]);
        impl<'de> serde::Deserializer<'de> for Probe<'_> {
            type Error = serde::de::value::Error;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
                Err(serde::de::Error::custom("not a struct"))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, Self::Error> {
                *self.0 = fields;
                Err(serde::de::Error::custom("probed"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
                byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
                identifier ignored_any
            }
        }
        let mut fields: &'static [&'static str] = &[];
        let _ = T::deserialize(Probe(&mut fields));
        fields
    }

    /// Other values of the same kind, to try in a field's place.
    fn other_values(v: &Value) -> Vec<Value> {
        match v {
            Value::String(s) => vec![json!(format!("{s}x")), json!("7 s")],
            Value::Number(n) => vec![json!(n.as_f64().unwrap_or(0.0) as u64 + 1)],
            Value::Bool(b) => vec![json!(!b)],
            Value::Array(items) => {
                let mut more = items.clone();
                more.push(json!("x"));
                vec![Value::Array(more)]
            }
            Value::Null | Value::Object(_) => vec![json!("x"), json!(["x"]), json!(2)],
        }
    }

    /// What the journal compares: the command as it runs and the settings.
    fn header(v: &Verdicts) -> (String, BTreeMap<String, String>) {
        (v.command(), v.settings())
    }

    #[test]
    fn the_journal_header_changes_when_any_option_that_reaches_the_test_changes() {
        let base = base();
        let value = serde_json::to_value(&base).expect("serializes");
        let fields = field_names::<Verdicts>();
        assert!(fields.len() >= 8, "{fields:?}");
        for &field in fields {
            let current = value.get(field).unwrap_or_else(|| {
                panic!("`{field}` is left out of the serialized header: {value}")
            });
            let changed = other_values(current)
                .into_iter()
                .find_map(|other| {
                    let mut v = value.clone();
                    v[field] = other;
                    serde_json::from_value::<Verdicts>(v)
                        .ok()
                        .filter(|c| *c != base)
                })
                .unwrap_or_else(|| panic!("no other value found for `{field}`"));
            assert_ne!(
                header(&changed),
                header(&base),
                "changing `{field}` leaves the journal header as it was"
            );
        }
    }

    #[test]
    fn the_header_reads_as_before_for_the_timeout_and_the_file_name() {
        let mut v = base();
        assert_eq!(v.settings()["timeout"], "adaptive");
        v.timeout = Some(30.0);
        assert_eq!(v.settings()["timeout"], "30 s");
        assert_eq!(v.settings()["candidate file name"], "crash.py");
        assert!(!v.settings().contains_key("generator"));
        v.expect = vec!["internal compiler error".to_string()];
        assert!(v.command().contains("grep -qF"), "{}", v.command());
    }
}
