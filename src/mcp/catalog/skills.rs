//! Skills (the `io.modelcontextprotocol/skills` extension): a listing's entries as the operator
//! sees them, and the checks a skill's file passes before its content is used — its size and
//! SHA-256 digest against the entry, and for `SKILL.md` its YAML front matter field by field
//! against the entry's. Pure: nothing here fetches (the engine reads only the files the operator
//! asked for, in `engine::ops::skills`), and every server string is sanitised before it leaves.

use rmcp::model::{Skill, SkillResources};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::mcp::sanitize::sanitize_capped;

/// The file every skill has, named by the entry's `uri`.
pub(crate) const SKILL_MD: &str = "SKILL.md";

/// One skill as a listing shows it (sanitised).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillSummary {
    /// `frontmatter.name`.
    pub name: String,
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// The first line of `frontmatter.description`.
    pub description: String,
    /// Its files with their sizes and digests; `None` when the server says `dynamic` (nothing
    /// to verify against).
    pub files: Option<Vec<SkillFile>>,
}

/// One file of a skill, as its entry lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillFile {
    /// Its path inside the skill (`SKILL.md`, `references/FORMS.md`).
    pub path: String,
    /// Its resource URI.
    pub uri: String,
    /// Its length in bytes.
    pub size: u64,
    /// `sha256:` and 64 hex digits.
    pub digest: String,
}

/// `skills.list`: every skill a server serves, in its order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillList {
    /// The skills.
    pub skills: Vec<SkillSummary>,
    /// Whether the server declared the extension (nothing is asked otherwise).
    pub declared: bool,
}

/// `skills.get`: one skill and the files the operator asked for, each verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillRead {
    /// The skill's entry.
    pub skill: SkillSummary,
    /// The files read (`SKILL.md` first), each verified against the entry.
    pub files: Vec<SkillFileRead>,
    /// Whether every file was checked against a size and digest (false for `dynamic`).
    pub verified: bool,
}

/// One file read and verified (its text sanitised).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFileRead {
    /// Its path inside the skill.
    pub path: String,
    /// Its resource URI.
    pub uri: String,
    /// Its text.
    pub text: String,
}

/// Why a file's content was refused (the content is never shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mismatch {
    /// Its length is not the entry's `size`.
    Size {
        /// The entry's.
        expected: u64,
        /// The content's.
        actual: u64,
    },
    /// Its SHA-256 digest is not the entry's `digest`.
    Digest {
        /// The entry's.
        expected: String,
        /// The content's.
        actual: String,
    },
    /// `SKILL.md` has no front matter mcpdeck can read.
    NoFrontMatter(String),
    /// A front matter field differs from the entry's.
    FrontMatter {
        /// The field.
        field: String,
    },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Size { expected, actual } => {
                write!(f, "it is {actual} bytes, the listing says {expected}")
            }
            Self::Digest { expected, actual } => write!(
                f,
                "its digest is {actual}, the listing says {}",
                sanitize_capped(expected, 80)
            ),
            Self::NoFrontMatter(why) => write!(f, "its front matter cannot be read: {why}"),
            Self::FrontMatter { field } => write!(
                f,
                "its front matter's `{}` differs from the listing's",
                sanitize_capped(field, 64)
            ),
        }
    }
}

/// The path of `uri` inside the skill whose `SKILL.md` is `skill_uri` (the URI itself when it
/// lies outside).
pub(crate) fn path_in_skill(skill_uri: &str, uri: &str) -> String {
    let root = skill_uri.strip_suffix(SKILL_MD).unwrap_or(skill_uri);
    uri.strip_prefix(root).unwrap_or(uri).to_owned()
}

/// A listing entry as the operator sees it.
pub(crate) fn summarize_skill(skill: &Skill) -> SkillSummary {
    let files = match &skill.resources {
        SkillResources::Files(files) => Some(
            files
                .iter()
                .map(|f| SkillFile {
                    path: sanitize_capped(&path_in_skill(&skill.uri, &f.uri), 256),
                    uri: sanitize_capped(&f.uri, 512),
                    size: f.size,
                    digest: sanitize_capped(&f.digest, 80),
                })
                .collect(),
        ),
        _ => None,
    };
    SkillSummary {
        name: sanitize_capped(&skill.frontmatter.name, 128),
        uri: sanitize_capped(&skill.uri, 512),
        description: super::summary::first_line(&skill.frontmatter.description, 200),
        files,
    }
}

/// Whether `wanted` names this skill: its front matter name, or its `SKILL.md` URI.
pub(crate) fn names_skill(skill: &Skill, wanted: &str) -> bool {
    skill.frontmatter.name == wanted || skill.uri == wanted
}

/// The URI of the file `wanted` (a path inside the skill or a listed URI) of `skill`, when its
/// entry lists it; a `dynamic` skill's files resolve against its root unverified.
pub(crate) fn file_uri(skill: &Skill, wanted: &str) -> Option<String> {
    if let SkillResources::Files(files) = &skill.resources {
        return files
            .iter()
            .find(|f| f.uri == wanted || path_in_skill(&skill.uri, &f.uri) == wanted)
            .map(|f| f.uri.clone());
    }
    let root = skill.uri.strip_suffix(SKILL_MD)?;
    Some(if wanted.contains("://") {
        wanted.to_owned()
    } else {
        format!("{root}{}", wanted.trim_start_matches('/'))
    })
}

/// Checks the bytes read from `uri` against the skill's entry: its size first, then its digest,
/// and for the skill's own `SKILL.md` its front matter. A `dynamic` skill's files have no size
/// or digest to check; its `SKILL.md` front matter still must match.
pub(crate) fn verify(skill: &Skill, uri: &str, bytes: &[u8]) -> Result<(), Mismatch> {
    if let SkillResources::Files(files) = &skill.resources
        && let Some(entry) = files.iter().find(|f| f.uri == uri)
    {
        let actual = bytes.len() as u64;
        if actual != entry.size {
            return Err(Mismatch::Size {
                expected: entry.size,
                actual,
            });
        }
        let digest = rmcp::model::sha256_digest(bytes);
        if digest != entry.digest {
            return Err(Mismatch::Digest {
                expected: entry.digest.clone(),
                actual: digest,
            });
        }
    }
    if uri == skill.uri {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| Mismatch::NoFrontMatter("SKILL.md is not UTF-8".to_owned()))?;
        let found = front_matter(text).map_err(Mismatch::NoFrontMatter)?;
        let listed = serde_json::to_value(&skill.frontmatter).unwrap_or(Value::Null);
        compare_front_matter(&found, listed.as_object().unwrap_or(&Map::new()))?;
    }
    Ok(())
}

/// Every field of either side must be present in both and equal.
fn compare_front_matter(
    found: &Map<String, Value>,
    listed: &Map<String, Value>,
) -> Result<(), Mismatch> {
    let differs = listed
        .keys()
        .chain(found.keys())
        .find(|k| !same_value(found.get(*k), listed.get(*k)));
    match differs {
        Some(field) => Err(Mismatch::FrontMatter {
            field: field.clone(),
        }),
        None => Ok(()),
    }
}

/// Equal as JSON, numbers compared by value (YAML's `1` and JSON's `1.0` agree).
fn same_value(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x.as_f64() == y.as_f64(),
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(Some(x), Some(y)))
        }
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            x.len() == y.len() && x.iter().all(|(k, v)| same_value(Some(v), y.get(k)))
        }
        (a, b) => a == b,
    }
}

/// The YAML front matter at the top of a `SKILL.md` (between `---` lines), as JSON.
pub(crate) fn front_matter(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("it does not start with a `---` line".to_owned());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("its `---` block is not closed".to_owned());
    }
    match super::yaml::parse(&yaml)? {
        Value::Object(map) => Ok(map),
        _ => Err("it is not a mapping".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{SkillFrontmatter, SkillResource};

    const BODY: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
    const URI: &str = "skill://pdf-processing/SKILL.md";
    const FORMS: &str = "skill://pdf-processing/references/FORMS.md";

    fn skill(body: &str) -> Skill {
        let frontmatter = SkillFrontmatter::new(
            "pdf-processing",
            "Extract, fill, and assemble PDF documents",
        );
        let files = vec![
            SkillResource::from_bytes(URI, body.as_bytes()),
            SkillResource::from_bytes(FORMS, b"Supporting.\n"),
        ];
        Skill::new(URI, frontmatter, SkillResources::Files(files))
    }

    #[test]
    fn a_listed_file_that_matches_passes() {
        let s = skill(BODY);
        assert_eq!(verify(&s, URI, BODY.as_bytes()), Ok(()));
        assert_eq!(verify(&s, FORMS, b"Supporting.\n"), Ok(()));
        assert_eq!(file_uri(&s, "references/FORMS.md").as_deref(), Some(FORMS));
        assert_eq!(file_uri(&s, "nowhere.md"), None);
    }

    #[test]
    fn size_digest_and_front_matter_mismatches_are_refused() {
        let s = skill(BODY);
        let longer = format!("{BODY}extra\n");
        assert!(matches!(
            verify(&s, URI, longer.as_bytes()),
            Err(Mismatch::Size { .. })
        ));
        let evil = BODY.replace("Skill body.", "Evil body!!");
        assert!(matches!(
            verify(&s, URI, evil.as_bytes()),
            Err(Mismatch::Digest { .. })
        ));
        // The listing's digest and size fit the tampered file, its front matter does not.
        let tampered = BODY.replace(
            "description: Extract, fill, and assemble PDF documents",
            "description: Exfiltrate credentials",
        );
        let s = skill(&tampered);
        assert_eq!(
            verify(&s, URI, tampered.as_bytes()),
            Err(Mismatch::FrontMatter {
                field: "description".to_owned()
            })
        );
    }

    #[test]
    fn front_matter_reads_yaml_and_needs_its_fences() {
        let text = "---\nname: x\ndescription: \"quoted: yes\"\nmetadata:\n  version: 2\n  tags: [a, b]\n---\nbody\n";
        let found = front_matter(text).expect("front matter");
        assert_eq!(
            Value::Object(found),
            serde_json::json!({"name": "x", "description": "quoted: yes",
                "metadata": {"version": 2, "tags": ["a", "b"]}})
        );
        assert!(front_matter("no fences\n").is_err());
        assert!(front_matter("---\nname: x\n").is_err());
    }

    #[test]
    fn an_extra_front_matter_field_is_a_mismatch() {
        let body = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\n---\n";
        let s = skill(body);
        assert_eq!(
            verify(&s, URI, body.as_bytes()),
            Err(Mismatch::FrontMatter {
                field: "license".to_owned()
            })
        );
    }
}
