//! How deep a list paragraph sits against an open list, for word processors (DOCX, RTF) whose
//! paragraphs each name a list definition, a level within it and an indent.
//!
//! Levels of different list definitions do not compare: Word and LibreOffice write "List
//! Bullet 2"-like styles as level 0 of a list of their own, indented a step further than
//! "List Bullet". So within one list the level decides, across two the indent does (and the
//! level again when either indent is unknown).

use std::cmp::Ordering;

/// Indents closer than this (an eighth of an inch, in twips) are the same step.
pub const INDENT_STEP_TWIPS: i64 = 180;

/// How deep a paragraph at (`list`, `level`, `indent` in twips) sits against another.
pub fn depth_cmp<L: PartialEq>(
    (list, level, indent): (&L, u8, Option<i64>),
    (other_list, other_level, other_indent): (&L, u8, Option<i64>),
) -> Ordering {
    match (indent, other_indent) {
        (Some(a), Some(b)) if list != other_list => {
            if (a - b).abs() < INDENT_STEP_TWIPS {
                Ordering::Equal
            } else {
                a.cmp(&b)
            }
        }
        _ => level.cmp(&other_level),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_within_a_list_indents_across_lists() {
        assert_eq!(
            depth_cmp((&1, 1, Some(0)), (&1, 0, Some(720))),
            Ordering::Greater
        );
        assert_eq!(
            depth_cmp((&1, 0, Some(1080)), (&2, 0, Some(720))),
            Ordering::Greater
        );
        assert_eq!(
            depth_cmp((&1, 0, Some(760)), (&2, 3, Some(720))),
            Ordering::Equal
        );
        assert_eq!(
            depth_cmp((&1, 2, None), (&2, 0, Some(720))),
            Ordering::Greater
        );
    }
}
