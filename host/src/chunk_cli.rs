//! The chunk options of `quire convert --format chunks`: the same names and checks as the
//! multipart fields of `POST /api/v1/jobs` (`render::chunks::ChunkOptions::from_fields`).

use crate::config::Config;
use crate::render::chunks::ChunkOptions;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ChunkArgs {
    /// Chunks: the most tokens a chunk may hold, heading path included [default: 512].
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<String>,
    /// Chunks: tokens of the previous chunk's end repeated at the start of the next [default: 0].
    #[arg(long, value_name = "N")]
    pub overlap_tokens: Option<String>,
    /// Chunks: cl100k, o200k, or a name from CHUNK_TOKENIZERS [default: cl100k].
    #[arg(long, value_name = "NAME")]
    pub tokenizer: Option<String>,
    /// Chunks: prefix each chunk's text with its headings (true/false) [default: true].
    #[arg(long, value_name = "BOOL")]
    pub include_heading_path: Option<String>,
}

impl ChunkArgs {
    /// The chunk options when `chunks` is the format; a message naming every wrong flag
    /// otherwise (a chunk flag with another format is wrong too).
    pub fn options(&self, chunks: bool, config: &Config) -> Result<Option<ChunkOptions>, String> {
        let files = config.chunk_tokenizer_files().map_err(|e| e.to_string())?;
        let get = |field: &str| match field {
            "max_tokens" => self.max_tokens.clone(),
            "overlap_tokens" => self.overlap_tokens.clone(),
            "tokenizer" => self.tokenizer.clone(),
            "include_heading_path" => self.include_heading_path.clone(),
            _ => None,
        };
        match ChunkOptions::from_fields(&get, chunks, &files) {
            Ok(opts) => Ok(chunks.then_some(opts)),
            Err(errors) => Err(errors
                .into_iter()
                .map(|(field, _, message, _)| {
                    let flag = format!("--{}", field.replace('_', "-"));
                    message
                        .replace("output_format chunks", "--format chunks")
                        .replace(field, &flag)
                })
                .collect::<Vec<_>>()
                .join("; ")),
        }
    }
}
