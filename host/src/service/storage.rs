//! Where uploads and results live between hosts (issue 16): the local `UPLOAD_DIR` and
//! `OUTPUT_DIR` (the default, one machine or a shared filesystem), or an S3-compatible object
//! store (`STORAGE_URL=s3://bucket/prefix`), so that `quire serve` and `quire worker` processes
//! on different machines share nothing but Redis and the bucket.
//!
//! With the object store the local folders stay, as scratch space of this host only: the API
//! streams an upload to the bucket as it arrives ([`InputUpload`]), keeping a local copy only
//! while it checks a type whose checks read the whole file (ZIP and OLE2 containers, PDF;
//! `upload::needs_local_copy`); a worker fetches the input into its `UPLOAD_DIR` for the conversion
//! child, and sends the result (and the images of a `referenced` result) back once the child
//! has written them. Results are streamed from the bucket, or answered with a redirect to a
//! presigned URL (`S3_PRESIGNED_RESULTS`).
//!
//! Object names, under the prefix: `jobs/<id>/input`, `jobs/<id>/result.<ext>`,
//! `jobs/<id>/images/<name>`: one job's objects share one prefix, so deleting a job is one
//! listing. Names derive from the job id and server-made image names only.
//!
//! Small inputs still travel inside the job store (`Store::inline_input_limit`): one Redis
//! value instead of a multipart upload and a download.

use std::path::Path;

/// A failure of the object store itself (unreachable, timed out, refused), as opposed to one
/// of this host's own files: worth trying again later.
#[derive(Debug)]
pub struct RemoteError(pub String);

impl std::fmt::Display for RemoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RemoteError {}

/// Whether `e` came from the object store rather than from a local file.
pub fn is_remote_error(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<RemoteError>())
}

/// The backend, chosen by `STORAGE_URL`.
pub enum Storage {
    /// `UPLOAD_DIR` and `OUTPUT_DIR`; nothing leaves this host.
    Local,
    /// An S3-compatible bucket.
    #[cfg(feature = "storage-s3")]
    S3(s3::S3Storage),
}

/// A stored object read as a stream.
pub struct Object {
    pub len: u64,
    pub body: axum::body::Body,
}

/// What a result request gets from the object store.
pub enum Served {
    Stream(Object),
    /// A presigned URL to answer with 307.
    Redirect(String),
}

/// `s3://bucket/prefix` as (bucket, prefix without slashes at either end); the error says
/// what is accepted.
pub fn parse_url(url: &str) -> Result<(String, String), &'static str> {
    const ACCEPTS: &str = "s3://bucket or s3://bucket/prefix";
    let rest = url.strip_prefix("s3://").ok_or(ACCEPTS)?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let bucket_ok = (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    let prefix = prefix.trim_matches('/');
    if !bucket_ok || prefix.split('/').any(|s| s == "." || s == "..") {
        return Err(ACCEPTS);
    }
    Ok((bucket.to_string(), prefix.to_string()))
}

impl Storage {
    /// The backend of this configuration.
    pub fn open(config: &crate::config::Config) -> anyhow::Result<Storage> {
        match &config.storage_url {
            None => Ok(Storage::Local),
            #[cfg(feature = "storage-s3")]
            Some(url) => Ok(Storage::S3(s3::S3Storage::open(config, url)?)),
            #[cfg(not(feature = "storage-s3"))]
            Some(_) => anyhow::bail!(
                "STORAGE_URL is set, but this quire was built without the storage-s3 feature"
            ),
        }
    }

    /// Whether files go to an object store (the local folders are then scratch space).
    pub fn is_remote(&self) -> bool {
        !matches!(self, Storage::Local)
    }

    /// The store answers (readiness); always true for the local folders, checked apart.
    pub async fn ping(&self) -> Result<(), String> {
        match self {
            Storage::Local => Ok(()),
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => s.ping().await,
        }
    }

    /// Starts streaming job `id`'s input to the store as the request body arrives; `None` for
    /// the local folders (the upload is written to `UPLOAD_DIR` there).
    pub fn start_input(&self, id: &str) -> Option<InputUpload> {
        match self {
            Storage::Local => {
                let _ = id;
                None
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => Some(InputUpload {
                inner: s.start_upload(s.input_key(id)),
            }),
        }
    }

    /// Sends the upload at `local` to the store as job `id`'s input (nothing for the local
    /// folders, where it already is).
    pub async fn put_input(&self, id: &str, local: &Path) -> std::io::Result<()> {
        match self {
            Storage::Local => {
                let _ = (id, local);
                Ok(())
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => s.put_file(&s.input_key(id), local, &[]).await,
        }
    }

    /// Fetches job `id`'s input to `dest`; `Ok(false)` when the store has none.
    pub async fn fetch_input(&self, id: &str, dest: &Path) -> std::io::Result<bool> {
        match self {
            Storage::Local => {
                let _ = id;
                Ok(dest.is_file())
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => s.fetch(&s.input_key(id), dest).await,
        }
    }

    /// Sends a finished result (already moved into place locally) and its images to the
    /// store; the result last, so that its presence means the images are there too.
    pub async fn put_output(
        &self,
        id: &str,
        ext: &str,
        result: &Path,
        images: Option<&Path>,
        content_type: &str,
        content_disposition: &str,
    ) -> std::io::Result<()> {
        match self {
            Storage::Local => {
                let _ = (id, ext, result, images, content_type, content_disposition);
                Ok(())
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => {
                if let Some(dir) = images {
                    for name in image_names(dir)? {
                        let ctype =
                            crate::render::files::image_content_type(&name).unwrap_or("image/png");
                        s.put_file(
                            &s.image_key(id, &name),
                            &dir.join(&name),
                            &[("type", ctype)],
                        )
                        .await?;
                    }
                }
                s.put_file(
                    &s.result_key(id, ext),
                    result,
                    &[("type", content_type), ("disposition", content_disposition)],
                )
                .await
            }
        }
    }

    /// A job's result, streamed or as a presigned URL; `Ok(None)` when it is not there.
    /// A presigned URL is signed with `content_type` and `content_disposition` as the
    /// `response-content-*` overrides, so the store answers with the contract's headers
    /// whatever it kept with the object.
    pub async fn result(
        &self,
        id: &str,
        ext: &str,
        content_type: &str,
        content_disposition: &str,
    ) -> std::io::Result<Option<Served>> {
        match self {
            Storage::Local => {
                let _ = (id, ext, content_type, content_disposition);
                Ok(None)
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => {
                let headers = [
                    ("response-content-disposition", content_disposition),
                    ("response-content-type", content_type),
                ];
                s.serve(&s.result_key(id, ext), &headers).await
            }
        }
    }

    /// One image of a `referenced` result.
    pub async fn image(
        &self,
        id: &str,
        name: &str,
        content_type: &str,
    ) -> std::io::Result<Option<Served>> {
        match self {
            Storage::Local => {
                let _ = (id, name, content_type);
                Ok(None)
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => {
                let headers = [("response-content-type", content_type)];
                s.serve(&s.image_key(id, name), &headers).await
            }
        }
    }

    /// Copies a result and its images into `result` and `images` (the zip bundle is built
    /// from local files); `Ok(false)` when the result is not there.
    pub async fn fetch_output(
        &self,
        id: &str,
        ext: &str,
        result: &Path,
        images: &Path,
    ) -> std::io::Result<bool> {
        match self {
            Storage::Local => {
                let _ = (id, ext, images);
                Ok(result.is_file())
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => {
                if !s.fetch(&s.result_key(id, ext), result).await? {
                    return Ok(false);
                }
                for name in s.image_list(id).await? {
                    std::fs::create_dir_all(images)?;
                    s.fetch(&s.image_key(id, &name), &images.join(&name))
                        .await?;
                }
                Ok(true)
            }
        }
    }

    /// Removes every object of job `id`.
    pub async fn remove(&self, id: &str) -> std::io::Result<()> {
        match self {
            Storage::Local => {
                let _ = id;
                Ok(())
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => s.remove_job(id).await,
        }
    }

    /// Removes job `id`'s result and images, keeping its input (a failed store of an output).
    pub async fn remove_output(&self, id: &str) -> std::io::Result<()> {
        match self {
            Storage::Local => {
                let _ = id;
                Ok(())
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => s.remove_outputs(id).await,
        }
    }

    /// The job ids that have objects older than `age` (for the orphan sweep).
    pub async fn old_jobs(&self, age: std::time::Duration) -> std::io::Result<Vec<String>> {
        match self {
            Storage::Local => {
                let _ = age;
                Ok(Vec::new())
            }
            #[cfg(feature = "storage-s3")]
            Storage::S3(s) => s.old_jobs(age).await,
        }
    }
}

/// An upload on its way to the object store as a job's input, sent while the request body is
/// still being read ([`Storage::start_input`]): parts of [`s3::PART_SIZE`] as they fill, each
/// sent while the next one fills (the process-wide cap on part buffers holds), one plain PUT
/// when the whole file fits in one part.
///
/// It never leaves debris behind: dropped before [`InputUpload::finish`] (a refused upload, a
/// client that went away), its multipart upload is aborted; dropped after it but before
/// [`InputUpload::keep`] (the request was refused after the body was read), the object is
/// deleted. [`InputUpload::discard`] does the same and waits for it.
pub struct InputUpload {
    #[cfg(feature = "storage-s3")]
    inner: s3::Streaming,
}

impl InputUpload {
    /// The next bytes of the body.
    pub async fn write(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        #[cfg(feature = "storage-s3")]
        return self.inner.write(chunk).await;
        #[cfg(not(feature = "storage-s3"))]
        {
            let _ = chunk;
            Ok(())
        }
    }

    /// The body has ended: the object is complete in the store.
    pub async fn finish(&mut self) -> std::io::Result<()> {
        #[cfg(feature = "storage-s3")]
        return self.inner.finish().await;
        #[cfg(not(feature = "storage-s3"))]
        Ok(())
    }

    /// The job that owns the object exists now: the object stays.
    pub fn keep(self) {
        #[cfg(feature = "storage-s3")]
        self.inner.keep();
    }

    /// Aborts the multipart upload, or deletes the finished object, and waits for that.
    pub async fn discard(self) {
        #[cfg(feature = "storage-s3")]
        self.inner.discard().await;
    }
}

/// The files directly inside an images folder, by name.
#[cfg_attr(not(feature = "storage-s3"), allow(dead_code))]
fn image_names(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(feature = "storage-s3")]
pub mod s3 {
    //! The S3 backend on `object_store` (Apache Arrow project): multipart uploads with
    //! bounded buffering, streamed reads, presigned URLs, and the AWS credential chain
    //! (environment, web identity, ECS, instance metadata).

    use super::{Object, Served};
    use futures::StreamExt;
    use object_store::aws::{AmazonS3, AmazonS3Builder};
    use object_store::path::{Path as Key, PathPart};
    use object_store::signer::Signer;
    use object_store::{
        Attribute, Attributes, MultipartUpload, ObjectStore, PutMultipartOptions, PutOptions,
        PutPayload,
    };
    use std::path::Path;
    use std::sync::Arc;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::sync::{OwnedSemaphorePermit, Semaphore};

    /// Part size of multipart uploads (S3's minimum); files up to one part go in one PUT.
    pub const PART_SIZE: usize = 5 << 20;
    /// Part buffers the whole process holds at once, shared by every upload and result
    /// transfer: what transfers cost in memory is at most this many parts, however many run.
    /// Each transfer fills a buffer only while it holds a permit and sends it before filling
    /// the next. Two parts in flight per transfer (8 MiB, then 5 MiB) measured 252 and ~150 MiB
    /// peak RSS for 8 concurrent 100 MB uploads (scripts/measure/storage-s3.sh, ARCHITECTURE.md).
    const PARTS_IN_MEMORY: usize = 4;

    pub struct S3Storage {
        store: AmazonS3,
        /// The signing region (presigned URLs).
        region: String,
        prefix: String,
        presigned: Option<Duration>,
        /// [`PARTS_IN_MEMORY`] permits, one per part buffer.
        parts: Arc<Semaphore>,
    }

    /// Where a [`Streaming`] upload is.
    enum Stage {
        /// Receiving; a multipart upload exists once the first part was sent.
        Open,
        /// Complete in the store, not yet owned by a job.
        Stored,
        /// Owned by a job, or removed.
        Done,
    }

    /// The S3 side of [`super::InputUpload`].
    pub struct Streaming {
        store: AmazonS3,
        key: Key,
        parts: Arc<Semaphore>,
        /// The part being filled (one allocation of [`PART_SIZE`]) and the permit it holds.
        part: Vec<u8>,
        permit: Option<OwnedSemaphorePermit>,
        /// In a (never contended) mutex only to make the upload `Sync`, as the request's future
        /// must be: it is reached through `&mut self` (`get_mut`), without locking.
        upload: Option<tokio::sync::Mutex<Box<dyn MultipartUpload>>>,
        /// Parts being sent, each holding its buffer's permit until it is sent.
        sending: tokio::task::JoinSet<object_store::Result<()>>,
        stage: Stage,
    }

    impl Streaming {
        pub async fn write(&mut self, mut chunk: &[u8]) -> std::io::Result<()> {
            while !chunk.is_empty() {
                if self.part.len() == PART_SIZE {
                    // A full part with more to come: send it, fill the next.
                    self.send_part().await?;
                }
                if self.permit.is_none() {
                    let permit = self.parts.clone().acquire_owned().await;
                    self.permit = Some(permit.expect("never closed"));
                    self.part = Vec::with_capacity(PART_SIZE);
                }
                let take = (PART_SIZE - self.part.len()).min(chunk.len());
                self.part.extend_from_slice(&chunk[..take]);
                chunk = &chunk[take..];
            }
            // A part that failed fails the upload now, not at the end of the body.
            while let Some(sent) = self.sending.try_join_next() {
                if let Err(e) = sent.map_err(join_error).and_then(|r| r.map_err(io)) {
                    self.abort().await;
                    return Err(e);
                }
            }
            Ok(())
        }

        /// Starts sending the filled part in the background, with its permit.
        async fn send_part(&mut self) -> std::io::Result<()> {
            if self.upload.is_none() {
                match self.store.put_multipart(&self.key).await {
                    Ok(u) => self.upload = Some(tokio::sync::Mutex::new(u)),
                    Err(e) => {
                        self.abort().await;
                        return Err(io(e));
                    }
                }
            }
            let part = std::mem::take(&mut self.part);
            let permit = self.permit.take();
            let upload = self.upload.as_mut().expect("started above").get_mut();
            let sent = upload.put_part(PutPayload::from(part));
            self.sending.spawn(async move {
                let sent = sent.await;
                drop(permit);
                sent
            });
            Ok(())
        }

        pub async fn finish(&mut self) -> std::io::Result<()> {
            let done: std::io::Result<()> = async {
                if self.upload.is_none() {
                    let part = std::mem::take(&mut self.part);
                    self.store
                        .put(&self.key, PutPayload::from(part))
                        .await
                        .map_err(io)?;
                    self.permit = None;
                    return Ok(());
                }
                if !self.part.is_empty() {
                    self.send_part().await?;
                }
                while let Some(sent) = self.sending.join_next().await {
                    sent.map_err(join_error)?.map_err(io)?;
                }
                let upload = self.upload.as_mut().expect("started").get_mut();
                upload.complete().await.map_err(io)?;
                self.upload = None;
                Ok(())
            }
            .await;
            match done {
                Ok(()) => {
                    self.stage = Stage::Stored;
                    Ok(())
                }
                Err(e) => {
                    self.abort().await;
                    Err(e)
                }
            }
        }

        /// Stops the parts in flight and aborts the multipart upload.
        async fn abort(&mut self) {
            self.sending.shutdown().await;
            self.part = Vec::new();
            self.permit = None;
            if let Some(upload) = self.upload.take() {
                if let Err(e) = upload.into_inner().abort().await {
                    tracing::warn!(error = %e, "cannot abort a multipart upload");
                }
            }
            self.stage = Stage::Done;
        }

        pub fn keep(mut self) {
            self.stage = Stage::Done;
        }

        pub async fn discard(mut self) {
            match self.stage {
                Stage::Open => self.abort().await,
                Stage::Stored => {
                    self.stage = Stage::Done;
                    match self.store.delete(&self.key).await {
                        Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                        Err(e) => tracing::warn!(error = %e, "cannot remove a refused upload"),
                    }
                }
                Stage::Done => {}
            }
        }
    }

    impl Drop for Streaming {
        /// The request went away (or was refused) without [`Streaming::discard`]: the same
        /// clean-up, on the runtime, since a drop cannot wait.
        fn drop(&mut self) {
            if matches!(self.stage, Stage::Done) {
                return;
            }
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                return;
            };
            let rest = Streaming {
                store: self.store.clone(),
                key: self.key.clone(),
                parts: self.parts.clone(),
                part: Vec::new(),
                permit: None,
                upload: self.upload.take(),
                sending: std::mem::take(&mut self.sending),
                stage: std::mem::replace(&mut self.stage, Stage::Done),
            };
            runtime.spawn(rest.discard());
        }
    }

    fn join_error(e: tokio::task::JoinError) -> std::io::Error {
        std::io::Error::other(super::RemoteError(format!("part upload: {e}")))
    }

    /// The next part of `file`: [`PART_SIZE`] bytes, fewer at the end, none after it. One
    /// allocation of exactly one part (`read_to_end` would grow a full buffer to probe for
    /// the end, doubling it).
    async fn read_part(file: &mut tokio::fs::File) -> std::io::Result<Vec<u8>> {
        let mut part = vec![0u8; PART_SIZE];
        let mut filled = 0;
        while filled < PART_SIZE {
            let n = file.read(&mut part[filled..]).await?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        part.truncate(filled);
        Ok(part)
    }

    fn io(e: object_store::Error) -> std::io::Error {
        match e {
            object_store::Error::NotFound { .. } => {
                std::io::Error::new(std::io::ErrorKind::NotFound, e.to_string())
            }
            e => std::io::Error::other(super::RemoteError(format!("object store: {e}"))),
        }
    }

    impl S3Storage {
        pub fn open(config: &crate::config::Config, url: &str) -> anyhow::Result<S3Storage> {
            let (bucket, prefix) =
                super::parse_url(url).map_err(|a| anyhow::anyhow!("STORAGE_URL: expected {a}"))?;
            // The standard AWS variables (keys, session token, region, web identity, container
            // and instance credentials), the profile of the shared files (`AWS_PROFILE`) where
            // the variables give no keys or region; S3_ENDPOINT and S3_FORCE_PATH_STYLE on top.
            let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
            let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
            let chosen = super::profile::choose(&env).map_err(|e| anyhow::anyhow!("{e}"))?;
            if let Some(keys) = chosen.keys {
                builder = builder
                    .with_access_key_id(keys.access_key_id)
                    .with_secret_access_key(keys.secret_access_key);
                if let Some(token) = keys.session_token {
                    builder = builder.with_token(token);
                }
            }
            let region = chosen.region.unwrap_or_else(|| "us-east-1".into());
            builder = builder.with_region(&region);
            if let Some(endpoint) = &config.s3_endpoint {
                builder = builder
                    .with_endpoint(endpoint.trim_end_matches('/'))
                    .with_allow_http(endpoint.starts_with("http://"));
            }
            builder = builder
                .with_virtual_hosted_style_request(!config.s3_force_path_style)
                // Transient errors are retried, but a store that stays down fails a request
                // within half a minute instead of object_store's default three.
                .with_retry(object_store::RetryConfig {
                    max_retries: 5,
                    retry_timeout: Duration::from_secs(30),
                    ..Default::default()
                });
            let store = builder
                .build()
                .map_err(|e| anyhow::anyhow!("cannot set up the S3 store: {e}"))?;
            Ok(S3Storage {
                store,
                region,
                prefix,
                presigned: config
                    .s3_presigned_results
                    .then(|| Duration::from_secs(config.s3_presigned_expiry)),
                parts: Arc::new(Semaphore::new(PARTS_IN_MEMORY)),
            })
        }

        fn key(&self, rest: &str) -> Key {
            if self.prefix.is_empty() {
                Key::from(rest)
            } else {
                Key::from(format!("{}/{rest}", self.prefix))
            }
        }

        fn job_prefix(&self, id: &str) -> Key {
            self.key(&format!("jobs/{id}"))
        }

        /// An upload to `key` that is sent as it is written ([`super::InputUpload`]).
        pub fn start_upload(&self, key: Key) -> Streaming {
            Streaming {
                store: self.store.clone(),
                key,
                parts: self.parts.clone(),
                part: Vec::new(),
                permit: None,
                upload: None,
                sending: tokio::task::JoinSet::new(),
                stage: Stage::Open,
            }
        }

        pub fn input_key(&self, id: &str) -> Key {
            self.key(&format!("jobs/{id}/input"))
        }

        pub fn result_key(&self, id: &str, ext: &str) -> Key {
            self.key(&format!("jobs/{id}/result.{ext}"))
        }

        pub fn image_key(&self, id: &str, name: &str) -> Key {
            let name = PathPart::from(name);
            Key::from_iter(self.job_prefix(id).parts().chain(["images".into(), name]))
        }

        pub async fn ping(&self) -> Result<(), String> {
            let probe = self.key("jobs");
            match tokio::time::timeout(
                Duration::from_secs(2),
                self.store.list_with_delimiter(Some(&probe)),
            )
            .await
            {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err("no answer within 2 s".into()),
            }
        }

        /// Sends a local file; `attrs` are ("type", ..) and ("disposition", ..). A file over
        /// one part goes as a multipart upload that is aborted on any error, so a failed
        /// transfer leaves neither an object nor an incomplete upload behind.
        pub async fn put_file(
            &self,
            key: &Key,
            local: &Path,
            attrs: &[(&str, &str)],
        ) -> std::io::Result<()> {
            let mut attributes = Attributes::new();
            for (k, v) in attrs {
                let attr = match *k {
                    "type" => Attribute::ContentType,
                    _ => Attribute::ContentDisposition,
                };
                attributes.insert(attr, v.to_string().into());
            }
            let mut file = tokio::fs::File::open(local).await?;
            let len = file.metadata().await?.len();
            if len <= PART_SIZE as u64 {
                let _buffer = self.parts.acquire().await.expect("never closed");
                let mut bytes = Vec::with_capacity(len as usize);
                file.read_to_end(&mut bytes).await?;
                let opts = PutOptions {
                    attributes,
                    ..Default::default()
                };
                self.store
                    .put_opts(key, PutPayload::from(bytes), opts)
                    .await
                    .map_err(io)?;
                return Ok(());
            }
            let opts = PutMultipartOptions {
                attributes,
                ..Default::default()
            };
            let mut upload = self.store.put_multipart_opts(key, opts).await.map_err(io)?;
            let sent: std::io::Result<()> = async {
                loop {
                    let _buffer = self.parts.acquire().await.expect("never closed");
                    let part = read_part(&mut file).await?;
                    if part.is_empty() {
                        return Ok(());
                    }
                    upload.put_part(PutPayload::from(part)).await.map_err(io)?;
                }
            }
            .await;
            match sent {
                Ok(()) => upload.complete().await.map(|_| ()).map_err(io),
                Err(e) => {
                    if let Err(abort) = upload.abort().await {
                        tracing::warn!(error = %abort, "cannot abort a multipart upload");
                    }
                    Err(e)
                }
            }
        }

        /// Streams an object to a local file (written beside `dest`, then renamed);
        /// `Ok(false)` when there is no such object.
        pub async fn fetch(&self, key: &Key, dest: &Path) -> std::io::Result<bool> {
            let got = match self.store.get(key).await {
                Ok(g) => g,
                Err(object_store::Error::NotFound { .. }) => return Ok(false),
                Err(e) => return Err(io(e)),
            };
            let temp = dest.with_extension(format!("fetch-{}.tmp", uuid::Uuid::new_v4()));
            let written: std::io::Result<()> = async {
                let mut out = tokio::fs::File::create(&temp).await?;
                let mut stream = got.into_stream();
                while let Some(chunk) = stream.next().await {
                    out.write_all(&chunk.map_err(io)?).await?;
                }
                out.flush().await?;
                tokio::fs::rename(&temp, dest).await
            }
            .await;
            if written.is_err() {
                let _ = tokio::fs::remove_file(&temp).await;
            }
            written.map(|_| true)
        }

        /// `overrides`: `response-content-*` query parameters signed into a presigned URL.
        pub async fn serve(
            &self,
            key: &Key,
            overrides: &[(&str, &str)],
        ) -> std::io::Result<Option<Served>> {
            if let Some(expiry) = self.presigned {
                // The object must exist: a 307 to a URL that answers 404 in S3's XML would
                // not be the contract's 404.
                match self.store.head(key).await {
                    Ok(_) => {}
                    Err(object_store::Error::NotFound { .. }) => return Ok(None),
                    Err(e) => return Err(io(e)),
                }
                // object_store builds the object's URL (endpoint, path style, key encoding);
                // the query is signed here, overrides included (its own signer takes none).
                let mut url = self
                    .store
                    .signed_url(reqwest::Method::GET, key, expiry)
                    .await
                    .map_err(io)?;
                url.set_query(None);
                let credential = self
                    .store
                    .credentials()
                    .get_credential()
                    .await
                    .map_err(io)?;
                let url = super::presign::presign_get(
                    &url,
                    &super::presign::Signing {
                        key_id: &credential.key_id,
                        secret: &credential.secret_key,
                        token: credential.token.as_deref(),
                        region: &self.region,
                    },
                    chrono::Utc::now(),
                    expiry,
                    overrides,
                );
                return Ok(Some(Served::Redirect(url)));
            }
            match self.store.get(key).await {
                Ok(got) => {
                    let len = got.meta.size;
                    let stream = got
                        .into_stream()
                        .map(|chunk| chunk.map_err(|e| std::io::Error::other(e.to_string())));
                    Ok(Some(Served::Stream(Object {
                        len,
                        body: axum::body::Body::from_stream(stream),
                    })))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(io(e)),
            }
        }

        pub async fn image_list(&self, id: &str) -> std::io::Result<Vec<String>> {
            let dir = Key::from_iter(self.job_prefix(id).parts().chain(["images".into()]));
            let mut names = Vec::new();
            let mut list = self.store.list(Some(&dir));
            while let Some(meta) = list.next().await {
                if let Some(name) = meta.map_err(io)?.location.filename() {
                    names.push(name.to_string());
                }
            }
            names.sort();
            Ok(names)
        }

        pub async fn remove_job(&self, id: &str) -> std::io::Result<()> {
            self.remove_under(id, None).await
        }

        pub async fn remove_outputs(&self, id: &str) -> std::io::Result<()> {
            self.remove_under(id, Some(self.input_key(id))).await
        }

        async fn remove_under(&self, id: &str, keep: Option<Key>) -> std::io::Result<()> {
            let prefix = self.job_prefix(id);
            let keys: Vec<Key> = self
                .store
                .list(Some(&prefix))
                .map(|m| m.map(|m| m.location))
                .collect::<Vec<_>>()
                .await
                .into_iter()
                .collect::<Result<_, _>>()
                .map_err(io)?;
            for key in keys.into_iter().filter(|k| Some(k) != keep.as_ref()) {
                match self.store.delete(&key).await {
                    Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                    Err(e) => return Err(io(e)),
                }
            }
            Ok(())
        }

        pub async fn old_jobs(&self, age: Duration) -> std::io::Result<Vec<String>> {
            let root = self.key("jobs");
            let depth = root.parts().count();
            let before = chrono::Utc::now()
                - chrono::Duration::from_std(age).unwrap_or(chrono::Duration::MAX);
            let mut ids: Vec<String> = Vec::new();
            let mut list = self.store.list(Some(&root));
            while let Some(meta) = list.next().await {
                let meta = meta.map_err(io)?;
                if meta.last_modified >= before {
                    continue;
                }
                let id = meta
                    .location
                    .parts()
                    .nth(depth)
                    .map(|p| p.as_ref().to_string());
                if let Some(id) = id.filter(|id| !ids.contains(id)) {
                    ids.push(id);
                }
            }
            Ok(ids)
        }
    }
}

/// Presigned GET URLs (AWS Signature Version 4, query form) whose signature covers
/// `response-content-disposition` and `response-content-type`, so S3 answers with those
/// headers: object_store 0.12's signer signs no extra query parameters (ARCHITECTURE.md).
#[cfg(feature = "storage-s3")]
pub mod presign {
    use ring::{digest, hmac};

    pub struct Signing<'a> {
        pub key_id: &'a str,
        pub secret: &'a str,
        pub token: Option<&'a str>,
        pub region: &'a str,
    }

    /// RFC 3986 unreserved characters stay; everything else is %XX (upper case), as SigV4's
    /// canonical query string wants it.
    fn encode(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        for b in s.bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn mac(key: &[u8], data: &str) -> Vec<u8> {
        let key = hmac::Key::new(hmac::HMAC_SHA256, key);
        hmac::sign(&key, data.as_bytes()).as_ref().to_vec()
    }

    /// `url` (scheme, host, port and the object's path, no query) presigned for GET for
    /// `expires`, with `extra` query parameters signed in.
    pub fn presign_get(
        url: &reqwest::Url,
        signing: &Signing<'_>,
        now: chrono::DateTime<chrono::Utc>,
        expires: std::time::Duration,
        extra: &[(&str, &str)],
    ) -> String {
        let date = now.format("%Y%m%d").to_string();
        let stamp = now.format("%Y%m%dT%H%M%SZ").to_string();
        let scope = format!("{date}/{}/s3/aws4_request", signing.region);
        let mut query: Vec<(String, String)> = vec![
            ("X-Amz-Algorithm".into(), "AWS4-HMAC-SHA256".into()),
            (
                "X-Amz-Credential".into(),
                format!("{}/{scope}", signing.key_id),
            ),
            ("X-Amz-Date".into(), stamp.clone()),
            ("X-Amz-Expires".into(), expires.as_secs().to_string()),
            ("X-Amz-SignedHeaders".into(), "host".into()),
        ];
        if let Some(token) = signing.token {
            query.push(("X-Amz-Security-Token".into(), token.into()));
        }
        query.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let mut encoded: Vec<(String, String)> =
            query.iter().map(|(k, v)| (encode(k), encode(v))).collect();
        encoded.sort();
        let canonical_query = encoded
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&");
        let host = match url.port() {
            Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
            None => url.host_str().unwrap_or_default().to_string(),
        };
        let canonical_request = format!(
            "GET\n{}\n{canonical_query}\nhost:{host}\n\nhost\nUNSIGNED-PAYLOAD",
            url.path()
        );
        let hashed = hex(digest::digest(&digest::SHA256, canonical_request.as_bytes()).as_ref());
        let to_sign = format!("AWS4-HMAC-SHA256\n{stamp}\n{scope}\n{hashed}");
        let key = mac(format!("AWS4{}", signing.secret).as_bytes(), &date);
        let key = mac(&key, signing.region);
        let key = mac(&key, "s3");
        let key = mac(&key, "aws4_request");
        let signature = hex(&mac(&key, &to_sign));
        let mut out = url.clone();
        out.set_query(Some(&format!(
            "{canonical_query}&X-Amz-Signature={signature}"
        )));
        out.to_string()
    }
}

#[cfg_attr(not(feature = "storage-s3"), allow(dead_code))]
/// `AWS_PROFILE`: credentials and region from the shared configuration files, read as the AWS
/// SDKs and CLI read them (object_store reads only the variables and the metadata services).
pub mod profile {
    use std::path::PathBuf;

    /// Static credentials.
    #[derive(Debug, PartialEq)]
    pub struct Keys {
        pub access_key_id: String,
        pub secret_access_key: String,
        pub session_token: Option<String>,
    }

    /// What the builder gets on top of the variables object_store reads itself.
    #[derive(Debug, PartialEq, Default)]
    pub struct Chosen {
        /// From the profile, when the variables name no access key.
        pub keys: Option<Keys>,
        /// `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`, else us-east-1.
        pub region: Option<String>,
    }

    /// The SDKs' order: the variables first (`AWS_ACCESS_KEY_ID` and the rest, which
    /// object_store reads), then the profile (`AWS_PROFILE`, else `default`) of
    /// `AWS_SHARED_CREDENTIALS_FILE` (default `~/.aws/credentials`, sections `[name]`) over
    /// `AWS_CONFIG_FILE` (default `~/.aws/config`, sections `[profile name]` and
    /// `[default]`); without keys there, object_store goes on to web identity, the container
    /// and the instance metadata. A profile named by `AWS_PROFILE` must exist, and must hold
    /// static keys or none at all: one that gets its credentials another way (`role_arn`,
    /// `sso_session`, `credential_process`) is refused rather than silently passed over.
    pub fn choose(env: &dyn Fn(&str) -> Option<String>) -> Result<Chosen, String> {
        let named = env("AWS_PROFILE");
        let name = named.clone().unwrap_or_else(|| "default".into());
        let home = env("HOME");
        let path = |var: &str, default: &str| -> Option<PathBuf> {
            let p = env(var).or_else(|| home.as_ref().map(|h| format!("{h}/.aws/{default}")))?;
            match (p.strip_prefix("~/"), &home) {
                (Some(rest), Some(h)) => Some(PathBuf::from(h).join(rest)),
                _ => Some(PathBuf::from(p)),
            }
        };
        let read = |p: Option<PathBuf>| -> Result<Option<(PathBuf, String)>, String> {
            let Some(p) = p else { return Ok(None) };
            match std::fs::read_to_string(&p) {
                Ok(text) => Ok(Some((p, text))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(format!("cannot read {}: {e}", p.display())),
            }
        };
        let credentials = read(path("AWS_SHARED_CREDENTIALS_FILE", "credentials"))?;
        let config = read(path("AWS_CONFIG_FILE", "config"))?;
        let mut found = false;
        let mut settings: Vec<(String, String)> = Vec::new();
        if let Some((_, text)) = &config {
            let wanted = format!("profile {name}");
            let section = ini_section(text, |s| {
                s == wanted || (name == "default" && s == "default")
            });
            found |= section.is_some();
            settings.extend(section.unwrap_or_default());
        }
        if let Some((_, text)) = &credentials {
            let section = ini_section(text, |s| s == name);
            found |= section.is_some();
            // The credentials file wins over the config file.
            settings.extend(section.unwrap_or_default());
        }
        let get = |key: &str| {
            settings
                .iter()
                .rev()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .filter(|v| !v.is_empty())
        };
        if !found && named.is_some() {
            let shown = |f: &Option<(PathBuf, String)>, var: &str, default: &str| match f {
                Some((p, _)) => p.display().to_string(),
                None => format!(
                    "{} (not found)",
                    env(var).unwrap_or(format!("~/.aws/{default}"))
                ),
            };
            return Err(format!(
                "AWS_PROFILE names the profile '{name}', which neither {} nor {} has",
                shown(&credentials, "AWS_SHARED_CREDENTIALS_FILE", "credentials"),
                shown(&config, "AWS_CONFIG_FILE", "config"),
            ));
        }
        let keys = match (get("aws_access_key_id"), get("aws_secret_access_key")) {
            (Some(access_key_id), Some(secret_access_key)) => Some(Keys {
                access_key_id,
                secret_access_key,
                session_token: get("aws_session_token"),
            }),
            (None, None) => {
                let other = [
                    "role_arn",
                    "sso_session",
                    "sso_start_url",
                    "credential_process",
                ]
                .into_iter()
                .find(|k| get(k).is_some());
                if let (Some(other), Some(_)) = (other, &named) {
                    return Err(format!(
                        "the AWS profile '{name}' gets its credentials through {other}, which quire \
                         does not support; give it aws_access_key_id and aws_secret_access_key, \
                         or use the AWS_* variables, web identity or instance credentials"
                    ));
                }
                None
            }
            _ => {
                return Err(format!(
                    "the AWS profile '{name}' has only one of aws_access_key_id and \
                     aws_secret_access_key"
                ))
            }
        };
        let keys = if env("AWS_ACCESS_KEY_ID").is_some() {
            None
        } else {
            keys
        };
        let region = env("AWS_REGION")
            .or_else(|| env("AWS_DEFAULT_REGION"))
            .or_else(|| get("region"))
            .or_else(|| Some("us-east-1".into()));
        Ok(Chosen { keys, region })
    }

    /// The `key = value` settings of the first section whose name (inner spaces folded)
    /// `wanted` accepts; `None` when there is none. Comments start with `#` or `;`; indented
    /// lines under a key with no value (nested settings such as `s3 =`) are skipped.
    fn ini_section(text: &str, wanted: impl Fn(&str) -> bool) -> Option<Vec<(String, String)>> {
        let mut out: Option<Vec<(String, String)>> = None;
        let mut inside = false;
        let mut nested = false;
        for raw in text.lines() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                if out.is_some() && inside {
                    break;
                }
                let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
                inside = wanted(&name);
                nested = false;
                if inside {
                    out = Some(Vec::new());
                }
                continue;
            }
            if !inside {
                continue;
            }
            if nested && raw.starts_with([' ', '\t']) {
                continue;
            }
            if let Some((k, v)) = line.split_once('=') {
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
                nested = v.is_empty();
                if let Some(settings) = out.as_mut() {
                    settings.push((k, v));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::parse_url;

    /// `AWS_PROFILE` with the files the SDKs read: keys from `[name]` of the credentials file,
    /// the region from `[profile name]` of the config file; the variables win; the default
    /// profile without `AWS_PROFILE`; a named profile that is missing, or that needs a
    /// credential source quire does not have, is an error at start.
    #[test]
    fn aws_profiles_are_read_from_the_shared_files() {
        use super::profile::{choose, Chosen, Keys};
        let dir = tempfile::tempdir().unwrap();
        let creds = dir.path().join("creds");
        let config = dir.path().join("conf");
        std::fs::write(
            &creds,
            "[default]\naws_access_key_id = DEF\naws_secret_access_key = defsecret\n\n\
             # a comment\n[work]\naws_access_key_id=WORKKEY\n aws_secret_access_key = worksecret \n\
             aws_session_token = tok\n",
        )
        .unwrap();
        std::fs::write(
            &config,
            "[default]\nregion = eu-west-1\n[profile work]\nregion = eu-central-1\n\
             aws_access_key_id = IGNORED\ns3 =\n  addressing_style = path\n\
             [profile  sso]\nsso_session = corp\nregion = us-west-2\n\
             [profile only-region]\nregion = ap-south-1\n",
        )
        .unwrap();
        let vars = |pairs: &[(&str, &str)]| {
            let mut all: Vec<(String, String)> = vec![
                (
                    "AWS_SHARED_CREDENTIALS_FILE".into(),
                    creds.display().to_string(),
                ),
                ("AWS_CONFIG_FILE".into(), config.display().to_string()),
                ("HOME".into(), "/nonexistent".into()),
            ];
            all.extend(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            move |k: &str| {
                all.iter()
                    .rev()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.clone())
            }
        };
        let keys = |id: &str, secret: &str, token: Option<&str>| {
            Some(Keys {
                access_key_id: id.into(),
                secret_access_key: secret.into(),
                session_token: token.map(String::from),
            })
        };
        assert_eq!(
            choose(&vars(&[("AWS_PROFILE", "work")])).unwrap(),
            Chosen {
                keys: keys("WORKKEY", "worksecret", Some("tok")),
                region: Some("eu-central-1".into())
            }
        );
        assert_eq!(
            choose(&vars(&[])).unwrap(),
            Chosen {
                keys: keys("DEF", "defsecret", None),
                region: Some("eu-west-1".into())
            }
        );
        // The variables come first, as in the SDKs' chain.
        assert_eq!(
            choose(&vars(&[
                ("AWS_PROFILE", "work"),
                ("AWS_ACCESS_KEY_ID", "ENV"),
                ("AWS_REGION", "sa-east-1")
            ]))
            .unwrap(),
            Chosen {
                keys: None,
                region: Some("sa-east-1".into())
            }
        );
        assert_eq!(
            choose(&vars(&[("AWS_PROFILE", "only-region")])).unwrap(),
            Chosen {
                keys: None,
                region: Some("ap-south-1".into())
            }
        );
        let missing = choose(&vars(&[("AWS_PROFILE", "nope")])).unwrap_err();
        assert!(missing.contains("'nope'"), "{missing}");
        let sso = choose(&vars(&[("AWS_PROFILE", "sso")])).unwrap_err();
        assert!(sso.contains("sso_session"), "{sso}");
        // No files at all: nothing from a profile, the default region.
        let none = |k: &str| (k == "HOME").then(|| "/nonexistent".to_string());
        assert_eq!(
            choose(&none).unwrap(),
            Chosen {
                keys: None,
                region: Some("us-east-1".into())
            }
        );
    }

    /// The presigned URL of AWS's Signature Version 4 documentation ("Authenticating
    /// Requests: Using Query Parameters", GET /test.txt of examplebucket, 24 May 2013, 86,400
    /// s): the same signature; with overrides, they are in the URL and change the signature.
    #[cfg(feature = "storage-s3")]
    #[test]
    fn presigned_urls_match_the_sigv4_example() {
        use super::presign::{presign_get, Signing};
        let url = reqwest::Url::parse("https://examplebucket.s3.amazonaws.com/test.txt").unwrap();
        let signing = Signing {
            key_id: "AKIAIOSFODNN7EXAMPLE",
            secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            token: None,
            region: "us-east-1",
        };
        let at = chrono::DateTime::parse_from_rfc3339("2013-05-24T00:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let day = std::time::Duration::from_secs(86_400);
        let plain = presign_get(&url, &signing, at, day, &[]);
        assert!(
            plain.ends_with(
                "X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
            ),
            "{plain}"
        );
        let named = presign_get(
            &url,
            &signing,
            at,
            day,
            &[(
                "response-content-disposition",
                "attachment; filename=\"a b.md\"",
            )],
        );
        assert!(
            named
                .contains("response-content-disposition=attachment%3B%20filename%3D%22a%20b.md%22"),
            "{named}"
        );
        assert!(!named.contains("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"));
    }

    #[test]
    fn storage_urls_name_a_bucket_and_an_optional_prefix() {
        assert_eq!(parse_url("s3://docs"), Ok(("docs".into(), "".into())));
        assert_eq!(
            parse_url("s3://docs/quire/prod/"),
            Ok(("docs".into(), "quire/prod".into()))
        );
        for bad in [
            "",
            "docs",
            "https://docs/x",
            "s3://",
            "s3://Do",
            "s3://a/../b",
        ] {
            assert!(parse_url(bad).is_err(), "{bad} accepted");
        }
    }
}
