//! The files of a `referenced` result (issue 14): `GET /api/v1/jobs/{id}/images/{name}` and
//! the whole result with its images as one zip, `GET /api/v1/jobs/{id}/result?bundle=zip`.
//!
//! A job with `image_mode=referenced` has its images in `OUTPUT_DIR/<id>.images/` (written by
//! the conversion child into a temporary folder, moved into place with the output). The zip
//! holds the result under its download name and the images under `images/`, so the result's
//! `images/<name>` links resolve inside it. It is built on request into an unlinked temporary
//! file and streamed, never held in memory; results are kept `FILE_TTL_HOURS`, the zip is not.

use super::errors::ApiError;
use super::job::{download_name, Job};
use super::storage::Served;
use super::{worker, Shared};
use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `bundle` parameter of a result request's query string, decoded (the last one wins).
pub fn bundle_param(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .filter(|(k, _)| *k == "bundle")
        .map(|(_, v)| {
            percent_encoding::percent_decode_str(&v.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned()
        })
        .next_back()
}

/// Where a job's `referenced` images live.
pub fn images_dir(shared: &Shared, id: &str) -> PathBuf {
    shared.config.output_dir.join(format!("{id}.images"))
}

/// The temporary images folder of one attempt (moved into place by the worker).
pub fn temp_images_dir(shared: &Shared, id: &str, attempt: u32) -> PathBuf {
    shared
        .config
        .output_dir
        .join(format!("{id}.{attempt}.images.tmp"))
}

/// Whether `name` can only name a file directly inside the images folder.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
}

/// One image of a completed `referenced` job.
pub async fn image(shared: &Shared, job: &Job, name: &str) -> Result<Response, ApiError> {
    let content_type = crate::render::files::image_content_type(name);
    let (Some(content_type), true) = (content_type, plain_name(name)) else {
        return Err(ApiError::NotFound("Image not found"));
    };
    if shared.storage.is_remote() {
        let served = shared
            .storage
            .image(&job.spec.id, name, content_type)
            .await?;
        return from_storage(served, content_type, None, "Image not found");
    }
    let path = images_dir(shared, &job.spec.id).join(name);
    let file = match tokio::fs::File::open(&path).await {
        Ok(f) => f,
        Err(_) => return Err(ApiError::NotFound("Image not found")),
    };
    let len = file.metadata().await?.len();
    Ok((
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (header::CONTENT_LENGTH, len.to_string()),
            (
                header::CACHE_CONTROL,
                "private, max-age=3600, immutable".to_string(),
            ),
        ],
        Body::from_stream(tokio_util::io::ReaderStream::new(file)),
    )
        .into_response())
}

/// The result and its images as one zip.
pub async fn bundle(shared: &Shared, job: &Job) -> Result<Response, ApiError> {
    let mut result = worker::output_path(shared, job);
    let mut images = images_dir(shared, &job.spec.id);
    // With an object store the result and its images are fetched into a scratch folder first,
    // removed when the zip has been built.
    let _scratch = if shared.storage.is_remote() {
        let dir = shared.config.output_dir.join(format!(
            "{}.bundle-{}.tmp.d",
            job.spec.id,
            uuid::Uuid::new_v4()
        ));
        tokio::fs::create_dir_all(&dir).await?;
        let guard = ScratchDir(dir.clone());
        result = dir.join("result");
        images = dir.join("images");
        let ext = job.spec.output_format.extension();
        if !shared
            .storage
            .fetch_output(&job.spec.id, ext, &result, &images)
            .await?
        {
            return Err(ApiError::NotFound("Result file not found"));
        }
        Some(guard)
    } else {
        None
    };
    if !result.is_file() {
        return Err(ApiError::NotFound("Result file not found"));
    }
    let name = download_name(&job.spec.file_name, job.spec.output_format);
    let temp = shared.config.output_dir.join(format!(
        "{}.bundle-{}.tmp",
        job.spec.id,
        uuid::Uuid::new_v4()
    ));
    let entry = name.clone();
    let file = tokio::task::spawn_blocking(move || -> std::io::Result<std::fs::File> {
        let built = write_zip(&temp, &result, &entry, &images);
        // Unlinked at once: the open handle is all that is left, gone when streamed.
        let opened = built.and_then(|_| std::fs::File::open(&temp));
        let _ = std::fs::remove_file(&temp);
        opened
    })
    .await
    .map_err(ApiError::internal)??;
    let len = file.metadata()?.len();
    let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
    let zip_name = format!("{stem}.zip");
    Ok((
        [
            (header::CONTENT_TYPE, "application/zip".to_string()),
            (
                header::CONTENT_DISPOSITION,
                super::api::content_disposition(&zip_name),
            ),
            (header::CONTENT_LENGTH, len.to_string()),
        ],
        Body::from_stream(tokio_util::io::ReaderStream::new(
            tokio::fs::File::from_std(file),
        )),
    )
        .into_response())
}

/// A folder removed with everything in it when dropped.
struct ScratchDir(PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The answer for an object of the object store: streamed with the contract's headers (the
/// download name as `Content-Disposition` when given), a 307 to a presigned URL (the object
/// carries the same `Content-Type` and `Content-Disposition`, set when it was written), or
/// the contract's 404.
pub fn from_storage(
    served: Option<Served>,
    content_type: &str,
    download_name: Option<&str>,
    not_found: &'static str,
) -> Result<Response, ApiError> {
    match served {
        None => Err(ApiError::NotFound(not_found)),
        Some(Served::Redirect(url)) => Ok((
            axum::http::StatusCode::TEMPORARY_REDIRECT,
            [
                (header::LOCATION, url),
                (header::CACHE_CONTROL, "no-store".to_string()),
            ],
        )
            .into_response()),
        Some(Served::Stream(object)) => {
            let mut response = object.body.into_response();
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_str(content_type).map_err(ApiError::internal)?,
            );
            headers.insert(
                header::CONTENT_LENGTH,
                header::HeaderValue::from(object.len),
            );
            match download_name {
                Some(name) => {
                    headers.insert(
                        header::CONTENT_DISPOSITION,
                        header::HeaderValue::from_str(&super::api::content_disposition(name))
                            .map_err(ApiError::internal)?,
                    );
                }
                None => {
                    headers.insert(
                        header::CACHE_CONTROL,
                        header::HeaderValue::from_static("private, max-age=3600, immutable"),
                    );
                }
            }
            Ok(response)
        }
    }
}

/// The zip: the result as `entry`, then every file of `images` under `images/`, sorted.
fn write_zip(path: &Path, result: &Path, entry: &str, images: &Path) -> std::io::Result<()> {
    use zip::write::SimpleFileOptions;
    let out = std::fs::File::create(path)?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(out));
    let deflated = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    // Images are compressed already: stored as they are.
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file(entry, deflated)
        .map_err(std::io::Error::other)?;
    std::io::copy(&mut std::fs::File::open(result)?, &mut zip)?;
    let mut names: Vec<String> = match std::fs::read_dir(images) {
        Ok(entries) => entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| plain_name(n))
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    for name in names {
        zip.start_file(
            format!("{}/{name}", crate::render::files::IMAGE_DIR),
            stored,
        )
        .map_err(std::io::Error::other)?;
        std::io::copy(&mut std::fs::File::open(images.join(&name))?, &mut zip)?;
    }
    let mut inner = zip.finish().map_err(std::io::Error::other)?;
    inner.flush()?;
    inner.get_ref().sync_all()
}
