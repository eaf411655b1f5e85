pub mod textgen;
