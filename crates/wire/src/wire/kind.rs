//! String enums that keep unknown values (SPEC V2: a reader ignores what it does not know).

/// Declares a string enum whose unknown values decode to `Unknown(String)` instead of failing.
/// Both wires use it: the durable agent's and the DSH bridge's.
macro_rules! open_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A value this program does not know (SPEC V2).
            Unknown(String),
        }

        impl $name {
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $text,)+
                    Self::Unknown(other) => other,
                }
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                match text {
                    $($text => Self::$variant,)+
                    // An unknown word is shown as given (SPEC V2), so it is cleaned and cut like
                    // any string from an agent (SPEC L1).
                    other => Self::Unknown($crate::wire::kind::clean_unknown(other)),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                Ok(Self::from(text.as_ref()))
            }
        }
    };
}

pub(crate) use open_enum;

/// Cleans an unknown enum word from an agent: no control or invisible characters, one line,
/// at most 64 bytes (SPEC L1).
pub(crate) fn clean_unknown(text: &str) -> String {
    use super::sanitize::{Lines, is_invisible, truncate_to};
    let cleaned: String = text
        .chars()
        .filter(|c| !is_invisible(*c, Lines::Single))
        .collect();
    truncate_to(&cleaned, 64).to_string()
}
