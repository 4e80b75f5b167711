//! String enums of the DSH bridge that keep unknown values, so a newer bridge never breaks the
//! decode of an older client (seed §3, SPEC V2).

/// Declares a string enum whose unknown values decode to `Unknown(String)` instead of failing.
/// The unknown word is cleaned and cut like any string from the bridge (SPEC L1).
macro_rules! dsh_open_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A value this program does not know (SPEC V2), cleaned and cut to 64 bytes.
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
                    other => Self::Unknown($crate::dsh::wire_enum::clean_word(other)),
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

pub(crate) use dsh_open_enum;

/// Cleans an unknown enum word: one line, no control or invisible characters, at most 64 bytes
/// (SPEC L1).
pub(crate) fn clean_word(text: &str) -> String {
    use crate::wire::sanitize::{Lines, is_invisible, truncate_to};
    let cleaned: String = text
        .chars()
        .filter(|c| !is_invisible(*c, Lines::Single))
        .collect();
    truncate_to(&cleaned, 64).to_string()
}
