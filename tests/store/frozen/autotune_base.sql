BEGIN TRANSACTION;
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version" VALUES('v3.2.0.a');
CREATE TABLE studies (
	study_id INTEGER NOT NULL, 
	study_name VARCHAR(512) NOT NULL, 
	PRIMARY KEY (study_id)
);
INSERT INTO "studies" VALUES(1,'frozen-base');
CREATE TABLE study_directions (
	study_direction_id INTEGER NOT NULL, 
	direction VARCHAR(8) NOT NULL, 
	study_id INTEGER NOT NULL, 
	objective INTEGER NOT NULL, 
	PRIMARY KEY (study_direction_id), 
	UNIQUE (study_id, objective), 
	FOREIGN KEY(study_id) REFERENCES studies (study_id)
);
INSERT INTO "study_directions" VALUES(1,'MAXIMIZE',1,0);
CREATE TABLE study_system_attributes (
	study_system_attribute_id INTEGER NOT NULL, 
	study_id INTEGER, 
	"key" VARCHAR(512), 
	value_json TEXT, 
	PRIMARY KEY (study_system_attribute_id), 
	UNIQUE (study_id, "key"), 
	FOREIGN KEY(study_id) REFERENCES studies (study_id)
);
CREATE TABLE study_user_attributes (
	study_user_attribute_id INTEGER NOT NULL, 
	study_id INTEGER, 
	"key" VARCHAR(512), 
	value_json TEXT, 
	PRIMARY KEY (study_user_attribute_id), 
	UNIQUE (study_id, "key"), 
	FOREIGN KEY(study_id) REFERENCES studies (study_id)
);
INSERT INTO "study_user_attributes" VALUES(1,1,'script','"/home/me/train.py"');
INSERT INTO "study_user_attributes" VALUES(2,1,'args','[]');
INSERT INTO "study_user_attributes" VALUES(3,1,'hardware','{"cpu_model": "Intel(R) Xeon(R) Processor", "cpu_count": 2, "memory_gb": 8, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "9e6befee17c0"}');
INSERT INTO "study_user_attributes" VALUES(4,1,'created_at','1700000000.0');
INSERT INTO "study_user_attributes" VALUES(5,1,'diagnosis','{"bound": "data", "summary": "the GPU waits on the loader"}');
INSERT INTO "study_user_attributes" VALUES(6,1,'stop_reason','"no gain in 4 trials"');
CREATE TABLE trial_heartbeats (
	trial_heartbeat_id INTEGER NOT NULL, 
	trial_id INTEGER NOT NULL, 
	heartbeat DATETIME NOT NULL, 
	PRIMARY KEY (trial_heartbeat_id), 
	UNIQUE (trial_id), 
	FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
CREATE TABLE trial_intermediate_values (
	trial_intermediate_value_id INTEGER NOT NULL, 
	trial_id INTEGER NOT NULL, 
	step INTEGER NOT NULL, 
	intermediate_value FLOAT, 
	intermediate_value_type VARCHAR(7) NOT NULL, 
	PRIMARY KEY (trial_intermediate_value_id), 
	UNIQUE (trial_id, step), 
	FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
INSERT INTO "trial_intermediate_values" VALUES(1,1,0,8.77165370608347871005e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(2,1,1,8.48315512579372125404e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(3,1,2,8.34492286839672374292e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(4,2,0,4.15556504833032522598e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(5,2,1,4.12031197550185243009e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(6,2,2,4.17533551334020467055e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(7,3,0,4.23267312841779585162e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(8,3,1,4.06861163785871576695e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(9,3,2,3.97798550488663749998e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(10,4,0,1.59701405950450362066e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(11,4,1,1.70498951999375844938e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(12,4,2,1.71695245373918669424e+03,'FINITE');
CREATE TABLE trial_params (
	param_id INTEGER NOT NULL, 
	trial_id INTEGER, 
	param_name VARCHAR(512), 
	param_value FLOAT, 
	distribution_json TEXT, 
	PRIMARY KEY (param_id), 
	UNIQUE (trial_id, param_name), 
	FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
INSERT INTO "trial_params" VALUES(1,1,'num_workers',0.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 8}}');
INSERT INTO "trial_params" VALUES(2,1,'pin_memory',0.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
INSERT INTO "trial_params" VALUES(3,2,'num_workers',8.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 8}}');
INSERT INTO "trial_params" VALUES(4,2,'pin_memory',0.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
INSERT INTO "trial_params" VALUES(5,3,'num_workers',5.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 8}}');
INSERT INTO "trial_params" VALUES(6,3,'pin_memory',0.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
INSERT INTO "trial_params" VALUES(7,4,'num_workers',1.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 8}}');
INSERT INTO "trial_params" VALUES(8,4,'pin_memory',0.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
INSERT INTO "trial_params" VALUES(9,5,'num_workers',2.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 8}}');
INSERT INTO "trial_params" VALUES(10,5,'pin_memory',0.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
CREATE TABLE trial_system_attributes (
	trial_system_attribute_id INTEGER NOT NULL, 
	trial_id INTEGER, 
	"key" VARCHAR(512), 
	value_json TEXT, 
	PRIMARY KEY (trial_system_attribute_id), 
	UNIQUE (trial_id, "key"), 
	FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
CREATE TABLE trial_user_attributes (
	trial_user_attribute_id INTEGER NOT NULL, 
	trial_id INTEGER, 
	"key" VARCHAR(512), 
	value_json TEXT, 
	PRIMARY KEY (trial_user_attribute_id), 
	UNIQUE (trial_id, "key"), 
	FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
INSERT INTO "trial_user_attributes" VALUES(1,1,'role','"baseline"');
INSERT INTO "trial_user_attributes" VALUES(2,1,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(3,1,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(4,1,'config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(5,1,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}');
INSERT INTO "trial_user_attributes" VALUES(6,1,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}, "applied_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [877.1653706083479, 848.3155125793721, 834.4922868396724], "samples_per_s": 855.1074962440077, "step_p50_s": 0.01, "step_p95_s": 0.02, "data_wait_fraction": 0.4, "wait_per_batch_s": 0.004, "compute_per_batch_s": 0.006, "time_to_first_batch_s": 0.2, "batches": 300, "samples": 9600, "batch_size": 32, "main_cpu_s": 1.2, "worker_cpu_s": 0.0, "measured_wall_s": 1.5, "epoch_starts": 0, "startup_fraction": null, "peak_rss_bytes": 500000000, "cpu_count": 2, "gpu": null, "wall_s": 3.2, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(7,1,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(8,2,'role','"search"');
INSERT INTO "trial_user_attributes" VALUES(9,2,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(10,2,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(11,2,'config','{"num_workers": 8, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(12,2,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}');
INSERT INTO "trial_user_attributes" VALUES(13,2,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}, "applied_config": {"num_workers": 8, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [4155.565048330325, 4120.311975501852, 4175.335513340205], "samples_per_s": 3988.7421572502503, "step_p50_s": 0.01, "step_p95_s": 0.02, "data_wait_fraction": 0.044444444444444446, "wait_per_batch_s": 0.004, "compute_per_batch_s": 0.006, "time_to_first_batch_s": 0.2, "batches": 300, "samples": 9600, "batch_size": 32, "main_cpu_s": 1.2, "worker_cpu_s": 6.4, "measured_wall_s": 1.5, "epoch_starts": 0, "startup_fraction": null, "peak_rss_bytes": 1300000000, "cpu_count": 2, "gpu": null, "wall_s": 3.2, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(14,2,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(15,3,'role','"search"');
INSERT INTO "trial_user_attributes" VALUES(16,3,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(17,3,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(18,3,'config','{"num_workers": 5, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(19,3,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}');
INSERT INTO "trial_user_attributes" VALUES(20,3,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}, "applied_config": {"num_workers": 5, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [4232.673128417796, 4068.6116378587158, 3977.9855048866375], "samples_per_s": 4066.7056315640248, "step_p50_s": 0.01, "step_p95_s": 0.02, "data_wait_fraction": 0.06666666666666667, "wait_per_batch_s": 0.004, "compute_per_batch_s": 0.006, "time_to_first_batch_s": 0.2, "batches": 300, "samples": 9600, "batch_size": 32, "main_cpu_s": 1.2, "worker_cpu_s": 4.0, "measured_wall_s": 1.5, "epoch_starts": 0, "startup_fraction": null, "peak_rss_bytes": 1000000000, "cpu_count": 2, "gpu": null, "wall_s": 3.2, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(21,3,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(22,4,'role','"search"');
INSERT INTO "trial_user_attributes" VALUES(23,4,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(24,4,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(25,4,'config','{"num_workers": 1, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(26,4,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}');
INSERT INTO "trial_user_attributes" VALUES(27,4,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}, "applied_config": {"num_workers": 1, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [1597.0140595045036, 1704.9895199937584, 1716.9524537391867], "samples_per_s": 1637.8780789361062, "step_p50_s": 0.01, "step_p95_s": 0.02, "data_wait_fraction": 0.2, "wait_per_batch_s": 0.004, "compute_per_batch_s": 0.006, "time_to_first_batch_s": 0.2, "batches": 300, "samples": 9600, "batch_size": 32, "main_cpu_s": 1.2, "worker_cpu_s": 0.8, "measured_wall_s": 1.5, "epoch_starts": 0, "startup_fraction": null, "peak_rss_bytes": 600000000, "cpu_count": 2, "gpu": null, "wall_s": 3.2, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(28,4,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(29,5,'role','"search"');
INSERT INTO "trial_user_attributes" VALUES(30,5,'status','"crashed"');
INSERT INTO "trial_user_attributes" VALUES(31,5,'reason','"worker 3 crashed: MemoryError"');
INSERT INTO "trial_user_attributes" VALUES(32,5,'config','{"num_workers": 2, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(33,5,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}');
INSERT INTO "trial_user_attributes" VALUES(34,5,'result','{"status": "crashed", "reason": "worker 3 crashed: MemoryError", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": null, "batch_size": 32, "num_streams": null, "device": null}, "applied_config": {"num_workers": 2, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [], "samples_per_s": null, "step_p50_s": 0.01, "step_p95_s": 0.02, "data_wait_fraction": 0.13333333333333333, "wait_per_batch_s": 0.004, "compute_per_batch_s": 0.006, "time_to_first_batch_s": 0.2, "batches": 300, "samples": 9600, "batch_size": 32, "main_cpu_s": 1.2, "worker_cpu_s": 1.6, "measured_wall_s": 1.5, "epoch_starts": 0, "startup_fraction": null, "peak_rss_bytes": 700000000, "cpu_count": 2, "gpu": null, "wall_s": 3.2, "exit_code": 1}');
INSERT INTO "trial_user_attributes" VALUES(35,5,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(36,5,'output_tail','"MemoryError\n"');
CREATE TABLE trial_values (
	trial_value_id INTEGER NOT NULL, 
	trial_id INTEGER NOT NULL, 
	objective INTEGER NOT NULL, 
	value FLOAT, 
	value_type VARCHAR(7) NOT NULL, 
	PRIMARY KEY (trial_value_id), 
	UNIQUE (trial_id, objective), 
	FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
INSERT INTO "trial_values" VALUES(1,1,0,8.55107496244007734241e+02,'FINITE');
INSERT INTO "trial_values" VALUES(2,2,0,3.98874215725025032955e+03,'FINITE');
INSERT INTO "trial_values" VALUES(3,3,0,4.0667056315640247705e+03,'FINITE');
INSERT INTO "trial_values" VALUES(4,4,0,1.63787807893610624886e+03,'FINITE');
CREATE TABLE trials (
	trial_id INTEGER NOT NULL, 
	number INTEGER, 
	study_id INTEGER, 
	state VARCHAR(8) NOT NULL, 
	datetime_start DATETIME, 
	datetime_complete DATETIME, 
	PRIMARY KEY (trial_id), 
	FOREIGN KEY(study_id) REFERENCES studies (study_id)
);
INSERT INTO "trials" VALUES(1,0,1,'COMPLETE','2026-11-21 23:43:06.189337','2026-11-21 23:43:06.189337');
INSERT INTO "trials" VALUES(2,1,1,'COMPLETE','2026-11-21 23:43:06.209478','2026-11-21 23:43:06.209478');
INSERT INTO "trials" VALUES(3,2,1,'COMPLETE','2026-11-21 23:43:06.221516','2026-11-21 23:43:06.221516');
INSERT INTO "trials" VALUES(4,3,1,'COMPLETE','2026-11-21 23:43:06.231663','2026-11-21 23:43:06.231663');
INSERT INTO "trials" VALUES(5,4,1,'FAIL','2026-11-21 23:43:06.242592','2026-11-21 23:43:06.242592');
CREATE TABLE version_info (
	version_info_id INTEGER NOT NULL, 
	schema_version INTEGER, 
	library_version VARCHAR(256), 
	PRIMARY KEY (version_info_id), 
	CHECK (version_info_id=1)
);
INSERT INTO "version_info" VALUES(1,12,'5.0.0');
CREATE UNIQUE INDEX ix_studies_study_name ON studies (study_name);
CREATE INDEX ix_trials_study_id ON trials (study_id);
COMMIT;
