BEGIN TRANSACTION;
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version" VALUES('v3.2.0.a');
CREATE TABLE autotune_alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT autotune_alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "autotune_alembic_version" VALUES('0003');
CREATE TABLE autotune_hosts (
	id INTEGER NOT NULL, 
	fingerprint VARCHAR(64) NOT NULL, 
	cpu_model VARCHAR(256), 
	cpu_count INTEGER, 
	memory_gb INTEGER, 
	gpu_model VARCHAR(256), 
	gpu_count INTEGER NOT NULL, 
	driver VARCHAR(64), 
	cuda VARCHAR(64), 
	torch VARCHAR(64), 
	platform VARCHAR(64), 
	raw JSON NOT NULL, 
	first_seen FLOAT NOT NULL, 
	CONSTRAINT pk_autotune_hosts PRIMARY KEY (id), 
	CONSTRAINT uq_autotune_hosts_fingerprint UNIQUE (fingerprint)
);
INSERT INTO "autotune_hosts" VALUES(1,'692a9c2ad1db','AMD EPYC',2,24,NULL,0,NULL,NULL,'2.13.0','linux','{"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}',1.7954560136337361335e+09);
CREATE TABLE autotune_recommendations (
	study_id INTEGER NOT NULL, 
	script_id INTEGER, 
	host_id INTEGER, 
	trial_number INTEGER NOT NULL, 
	config JSON NOT NULL, 
	samples_per_s FLOAT, 
	ci95 JSON, 
	baseline JSON, 
	speedup FLOAT, 
	snippet TEXT NOT NULL, 
	updated_at FLOAT NOT NULL, 
	CONSTRAINT pk_autotune_recommendations PRIMARY KEY (study_id), 
	CONSTRAINT fk_autotune_recommendations_study_id_autotune_studies FOREIGN KEY(study_id) REFERENCES autotune_studies (id) ON DELETE CASCADE
);
INSERT INTO "autotune_recommendations" VALUES(1,1,1,3,'{"num_workers": 100, "prefetch_factor": 8, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}',5.66762917889479194864e+03,'[1635.26392233694, 6649.004994083956]','{"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "samples_per_s": 219.9847480662197}',2.57637369350202618525e+01,'# autotune study latency: 5668 samples/s, 25.76x the script as written
loader = DataLoader(dataset, batch_size=32, num_workers=100, prefetch_factor=8, persistent_workers=True, pin_memory=False)',1.79545604303838276863e+09);
INSERT INTO "autotune_recommendations" VALUES(3,3,1,0,'{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}',6.70786413159016774426e+02,'null','{"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}, "samples_per_s": 670.7864131590168}',1.0,'# autotune study workers: 671 samples/s, 1.00x the script as written
loader = DataLoader(dataset, batch_size=8, num_workers=0, persistent_workers=False, pin_memory=False)',1.79545605780789923667e+09);
INSERT INTO "autotune_recommendations" VALUES(4,4,1,0,'{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}',NULL,'null','{"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}, "samples_per_s": null}',1.0,'# autotune study short: 0 samples/s, 1.00x the script as written
loader = DataLoader(dataset, batch_size=4, num_workers=0, persistent_workers=False, pin_memory=False)',1.79545606683990287776e+09);
INSERT INTO "autotune_recommendations" VALUES(5,5,1,1,'{"num_workers": 4, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}',2.87021181509411860578e+02,'[111.14602910266444, 2365.566918118276]','{"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "samples_per_s": 215.43819369660412}',1.33226693273160368136e+00,'# autotune study flaky: 287 samples/s, 1.33x the script as written
loader = DataLoader(dataset, batch_size=32, num_workers=4, prefetch_factor=2, persistent_workers=True, pin_memory=False)',1.79545617989865779876e+09);
CREATE TABLE autotune_scripts (
	id INTEGER NOT NULL, 
	path VARCHAR(1024) NOT NULL, 
	args JSON NOT NULL, 
	args_key TEXT NOT NULL, 
	content_hash VARCHAR(64), 
	CONSTRAINT pk_autotune_scripts PRIMARY KEY (id), 
	CONSTRAINT uq_autotune_scripts_path_args UNIQUE (path, args_key)
);
INSERT INTO "autotune_scripts" VALUES(1,'/tmp/frozen-src/examples/io_bound.py','[]','[]','47aec5a855655a869d72396f37496593cba803de0a423e28794d97947dcd38e2');
INSERT INTO "autotune_scripts" VALUES(2,'/tmp/frozen-src/tests/scripts/crash_in_worker.py','[]','[]','ba4f532a366ab89da129709b2f8384e4fbc723ba272fc9b256a7589b4a3ca654');
INSERT INTO "autotune_scripts" VALUES(3,'/tmp/frozen-src/tests/scripts/basic.py','[]','[]','7e8a21fa5873e6a67b5481b68516c3cf1bf60299a79d142ea6c90a11069b0c43');
INSERT INTO "autotune_scripts" VALUES(4,'/tmp/frozen-src/tests/scripts/ends_early.py','[]','[]','806fffad05e21096748e176e194afbf191d04e0623dc1501ca444b6fcfac25c2');
INSERT INTO "autotune_scripts" VALUES(5,'/tmp/frozen-src/examples/flaky_workers.py','[]','[]','d27c0fe81263c704ca3a5a21555efe55a5f1381178d5b58ab56b5a4cfaca3d9b');
CREATE TABLE autotune_studies (
	id INTEGER NOT NULL, 
	name VARCHAR(512) NOT NULL, 
	optuna_study_id INTEGER, 
	script_id INTEGER, 
	host_id INTEGER, 
	state VARCHAR(16) NOT NULL, 
	n_trials INTEGER NOT NULL, 
	n_complete INTEGER NOT NULL, 
	n_failed INTEGER NOT NULL, 
	n_pruned INTEGER NOT NULL, 
	best_samples_per_s FLOAT, 
	baseline_samples_per_s FLOAT, 
	speedup FLOAT, 
	ceiling_samples_per_s FLOAT, 
	efficiency FLOAT, 
	stop_reason TEXT, 
	diagnosis JSON, 
	summary JSON NOT NULL, 
	created_at FLOAT, 
	updated_at FLOAT NOT NULL, note TEXT, 
	CONSTRAINT pk_autotune_studies PRIMARY KEY (id), 
	CONSTRAINT fk_autotune_studies_host_id_autotune_hosts FOREIGN KEY(host_id) REFERENCES autotune_hosts (id) ON DELETE SET NULL, 
	CONSTRAINT fk_autotune_studies_script_id_autotune_scripts FOREIGN KEY(script_id) REFERENCES autotune_scripts (id) ON DELETE SET NULL, 
	CONSTRAINT uq_autotune_studies_name UNIQUE (name)
);
INSERT INTO "autotune_studies" VALUES(1,'latency',1,1,1,'finished',4,4,0,0,5.66762917889479194864e+03,2.19984748066219708566e+02,2.57637369350202618525e+01,9297.87454281768,6.09561803914945188331e-01,'2 trials in a row brought no gain beyond noise','{"bottleneck": "input-latency", "summary": "93% of each step waits for data; loading uses 0.13 CPU-s per second: latency-bound, more workers help (tens are fine)."}','{"study": "latency", "storage": "sqlite:////tmp/frozen/f.db", "script": "/tmp/frozen-src/examples/io_bound.py", "args": [], "hardware": {"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}, "nproc_per_node": 1, "measured_loader": {"loader": "DataLoader", "dataset": "RemoteImages", "batch_size": 32, "framework": null}, "framework": null, "recommended": {"trial": 3, "config": {"num_workers": 100, "prefetch_factor": 8, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "samples_per_s": 5667.629178894792, "ci95": [1635.26392233694, 6649.004994083956]}, "baseline": {"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "samples_per_s": 219.9847480662197}, "speedup": 25.763736935020262, "ceiling_samples_per_s": 9297.87454281768, "transport_ceiling_samples_per_s": 14310.906340922345, "binding_ceiling": "compute", "ceiling_missing": {}, "efficiency": 0.6095618039149452, "diagnosis": {"bottleneck": "input-latency", "summary": "93% of each step waits for data; loading uses 0.13 CPU-s per second: latency-bound, more workers help (tens are fine)."}, "interference": {"summary": "no interference: other processes used at most 0.2 cores in any window", "windows": 16, "disturbed_windows": 0, "max_cores": 0.247, "recommended": {"disturbed": 0, "windows": 5}, "baseline": {"disturbed": 0, "windows": 2}, "ceiling": {"disturbed": 0, "windows": 2}, "widened": false}, "verdict": null, "stop_reason": "2 trials in a row brought no gain beyond noise", "trials": {"complete": 4, "failed": 0, "pruned": 0}, "probe_seconds": 42.565, "failures": []}',1.79545599979404330252e+09,1.79545604303838276863e+09,NULL);
INSERT INTO "autotune_studies" VALUES(2,'crash',2,2,1,'finished',1,0,1,0,NULL,NULL,NULL,NULL,NULL,'the script as written failed (crashed): ValueError: corrupt sample 20','{"bottleneck": "unknown", "summary": "no measurement to diagnose (crashed)."}','{"study": "crash", "storage": "sqlite:////tmp/frozen/f.db", "script": "/tmp/frozen-src/tests/scripts/crash_in_worker.py", "args": [], "hardware": {"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}, "nproc_per_node": 1, "measured_loader": null, "framework": null, "recommended": null, "baseline": {"trial": 0, "config": {"num_workers": null, "prefetch_factor": null, "pin_memory": null, "persistent_workers": null, "batch_size": null, "num_streams": null, "device": "cpu"}, "samples_per_s": null}, "speedup": null, "ceiling_samples_per_s": null, "transport_ceiling_samples_per_s": null, "binding_ceiling": null, "ceiling_missing": {}, "efficiency": null, "diagnosis": {"bottleneck": "unknown", "summary": "no measurement to diagnose (crashed)."}, "interference": null, "verdict": null, "stop_reason": "the script as written failed (crashed): ValueError: corrupt sample 20", "trials": {"complete": 0, "failed": 1, "pruned": 0}, "probe_seconds": 1.474, "failures": [{"trial": 0, "status": "crashed", "reason": "ValueError: corrupt sample 20", "config": {"num_workers": null, "prefetch_factor": null, "pin_memory": null, "persistent_workers": null, "batch_size": null, "num_streams": 0, "device": "cpu"}}]}',1.79545604633117246622e+09,1.79545604790333604809e+09,NULL);
INSERT INTO "autotune_studies" VALUES(3,'workers',3,3,1,'finished',2,1,0,0,6.70786413159016774426e+02,6.70786413159016774426e+02,1.0,3.42899636045665647541e+03,NULL,'created for `autotune worker`: baseline measured, seeds enqueued','{"bottleneck": "input-latency", "summary": "81% of each step waits for data; loading uses 0.00 CPU-s per second: latency-bound, more workers help (tens are fine)."}','{"study": "workers", "storage": "sqlite:////tmp/frozen/f.db", "script": "/tmp/frozen-src/tests/scripts/basic.py", "args": [], "hardware": {"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}, "nproc_per_node": 1, "measured_loader": {"loader": "DataLoader", "dataset": "Tiny", "batch_size": 8, "framework": null}, "framework": null, "recommended": {"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}, "samples_per_s": 670.7864131590168, "ci95": null}, "baseline": {"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}, "samples_per_s": 670.7864131590168}, "speedup": 1.0, "ceiling_samples_per_s": 3428.9963604566565, "transport_ceiling_samples_per_s": 168414.93273845315, "binding_ceiling": null, "ceiling_missing": {}, "efficiency": null, "diagnosis": {"bottleneck": "input-latency", "summary": "81% of each step waits for data; loading uses 0.00 CPU-s per second: latency-bound, more workers help (tens are fine)."}, "interference": {"summary": "another process used 0.9 cores during 1 of 2 windows of the compute ceiling; they ran slower than on a quiet machine", "windows": 4, "disturbed_windows": 1, "max_cores": 0.917, "recommended": {"disturbed": 0, "windows": 2}, "baseline": {"disturbed": 0, "windows": 2}, "ceiling": {"disturbed": 1, "windows": 2}, "widened": false}, "verdict": null, "stop_reason": "created for `autotune worker`: baseline measured, seeds enqueued", "trials": {"complete": 1, "failed": 0, "pruned": 0}, "probe_seconds": 6.471, "failures": []}',1.79545605112599706652e+09,1.79545605780789923667e+09,NULL);
INSERT INTO "autotune_studies" VALUES(4,'short',4,4,1,'finished',1,0,1,0,NULL,NULL,1.0,NULL,NULL,'the script iterates 10 batches (4 samples) in 2.9 s and ends before a steady rate can be measured: loading is not worth tuning; keep the script''s own settings','{"bottleneck": "unknown", "summary": "no measurement to diagnose (ended_early)."}','{"study": "short", "storage": "sqlite:////tmp/frozen/f.db", "script": "/tmp/frozen-src/tests/scripts/ends_early.py", "args": [], "hardware": {"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}, "nproc_per_node": 1, "measured_loader": {"loader": "DataLoader", "dataset": "Tiny", "batch_size": 4, "framework": null}, "framework": null, "recommended": {"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}, "samples_per_s": null, "ci95": null}, "baseline": {"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}, "samples_per_s": null}, "speedup": 1.0, "ceiling_samples_per_s": null, "transport_ceiling_samples_per_s": null, "binding_ceiling": null, "ceiling_missing": {}, "efficiency": null, "diagnosis": {"bottleneck": "unknown", "summary": "no measurement to diagnose (ended_early)."}, "interference": null, "verdict": "the script iterates 10 batches (4 samples) in 2.9 s and ends before a steady rate can be measured: loading is not worth tuning; keep the script''s own settings", "stop_reason": "the script iterates 10 batches (4 samples) in 2.9 s and ends before a steady rate can be measured: loading is not worth tuning; keep the script''s own settings", "trials": {"complete": 0, "failed": 1, "pruned": 0}, "probe_seconds": 2.941, "failures": [{"trial": 0, "status": "ended_early", "reason": "the script ended after 10 batches, before 5 measurement windows were complete (0 done); figures cover what there was", "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}}]}',1.79545606347614336009e+09,1.79545606683990287776e+09,NULL);
INSERT INTO "autotune_studies" VALUES(5,'flaky',5,5,1,'finished',3,3,0,0,2.87021181509411860578e+02,2.15438193696604116675e+02,1.33226693273160368136e+00,8.53480540234479462952e+02,NULL,'2 trials in a row brought no gain beyond noise','{"bottleneck": "input-latency", "summary": "10% of each step waits for data; loading uses 0.01 CPU-s per second: latency-bound, more workers help (tens are fine)."}','{"study": "flaky", "storage": "sqlite:////tmp/frozen/f.db", "script": "/tmp/frozen-src/examples/flaky_workers.py", "args": [], "hardware": {"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}, "nproc_per_node": 1, "measured_loader": {"loader": "DataLoader", "dataset": "ShardedRemoteImages", "batch_size": 32, "framework": null}, "framework": null, "recommended": {"trial": 1, "config": {"num_workers": 4, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "samples_per_s": 287.02118150941186, "ci95": [111.14602910266444, 2365.566918118276]}, "baseline": {"trial": 0, "config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "samples_per_s": 215.43819369660412}, "speedup": 1.3322669327316037, "ceiling_samples_per_s": 853.4805402344795, "transport_ceiling_samples_per_s": 7770.491332008233, "binding_ceiling": null, "ceiling_missing": {}, "efficiency": null, "diagnosis": {"bottleneck": "input-latency", "summary": "10% of each step waits for data; loading uses 0.01 CPU-s per second: latency-bound, more workers help (tens are fine)."}, "interference": {"summary": "another process used 1.4 cores during 10 of 10 windows of the recommended settings, 5 of 5 of the script as written and 5 of 5 of the compute ceiling; they ran slower than on a quiet machine: the interval is widened to allow for it", "windows": 20, "disturbed_windows": 20, "max_cores": 1.818, "recommended": {"disturbed": 10, "windows": 10}, "baseline": {"disturbed": 5, "windows": 5}, "ceiling": {"disturbed": 5, "windows": 5}, "widened": true}, "verdict": null, "stop_reason": "2 trials in a row brought no gain beyond noise", "trials": {"complete": 3, "failed": 0, "pruned": 0}, "probe_seconds": 74.284, "failures": []}',1795456104.20002,1.79545617989865779876e+09,NULL);
CREATE TABLE autotune_trials (
	id INTEGER NOT NULL, 
	study_id INTEGER NOT NULL, 
	number INTEGER NOT NULL, 
	optuna_trial_id INTEGER, 
	state VARCHAR(16) NOT NULL, 
	role VARCHAR(16), 
	status VARCHAR(32), 
	reason TEXT, 
	failure_class VARCHAR(32), 
	config JSON, 
	script_config JSON, 
	samples_per_s FLOAT, 
	step_p50_s FLOAT, 
	step_p95_s FLOAT, 
	data_wait_fraction FLOAT, 
	wait_per_batch_s FLOAT, 
	compute_per_batch_s FLOAT, 
	time_to_first_batch_s FLOAT, 
	main_cpu_s FLOAT, 
	worker_cpu_s FLOAT, 
	peak_rss_bytes BIGINT, 
	gpu JSON, 
	batches INTEGER, 
	samples INTEGER, 
	wall_s FLOAT, 
	partial BOOLEAN NOT NULL, 
	duplicate_of INTEGER, 
	output_tail TEXT, 
	started_at FLOAT, 
	completed_at FLOAT, 
	source_hash VARCHAR(64) NOT NULL, steady_state BOOLEAN, warmup_s_used FLOAT, transport_samples_per_s FLOAT, transport_by_workers JSON, transport_reason TEXT, measured_loader JSON, ranks JSON, 
	CONSTRAINT pk_autotune_trials PRIMARY KEY (id), 
	CONSTRAINT fk_autotune_trials_study_id_autotune_studies FOREIGN KEY(study_id) REFERENCES autotune_studies (id) ON DELETE CASCADE, 
	CONSTRAINT uq_autotune_trials_study_number UNIQUE (study_id, number)
);
INSERT INTO "autotune_trials" VALUES(1,1,0,1,'complete','baseline','ok','',NULL,'{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}',2.19984748066219708566e+02,1.44479875000001811713e-01,1.5651645200000530167e-01,9.29412307225142120259e-01,1.35209728375016879908e-01,1.0269008374983457088e-02,1.41871742999967409559e-01,2.20000000000000639488e-01,0.0,242573312,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}',30,672,1.37237419570000156458e+01,0,NULL,NULL,1.79545601355292201045e+09,1.79545601355292201045e+09,'1dbfcb8cdb9633ddf4768ee3615298fc79d8bfc0aee9489a9f2567a796d6ab14',1,4.70970240099995862692e+00,6.98401590831376728593e+05,'{"0": 698401.5908313767, "2": 14310.906340922345}','','{"loader": "DataLoader", "dataset": "RemoteImages", "batch_size": 32, "framework": null}','null');
INSERT INTO "autotune_trials" VALUES(2,1,1,2,'complete','seeded','ok','',NULL,'{"num_workers": 50, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}',3.94436609964049966943e+03,0.00433587599997054,1.6522812000005160371e-02,4.37072955761893422454e-01,3.67699973711292388972e-03,4.73578281701074639553e-03,0.792861122999966,3.75000000000000088817e+00,1.47000000000000086153e+00,709378560,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}',589,18560,8.37313727500003324166e+00,0,NULL,NULL,1.79545601368380689615e+09,1.79545602211556100846e+09,'7e2137bf00a1b6af1b505047fab45656e68de67a64e193182ea52e5acd3c89c1',1,2.6082519670000010592e+00,NULL,'null','','{"loader": "DataLoader", "dataset": "RemoteImages", "batch_size": 32, "framework": null}','null');
INSERT INTO "autotune_trials" VALUES(3,1,2,3,'complete','seeded','ok','',NULL,'{"num_workers": 100, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}',4.0928665832012056853e+03,2.88483900004621318657e-03,2.77443619999644397466e-02,4.57286597243122650002e-01,3.61654164411705182288e-03,4.29215645882399798871e-03,1.51562351000001171996e+00,2.99,1.25999999999999690025e+00,1213412352,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}',641,20224,1.01452067960000249515e+01,0,NULL,NULL,1.79545602218447399142e+09,1.79545603239899492263e+09,'655f5a7611b0d1c436af7be2c7bd9656216f644578b01e0e2da23548c974183e',1,4.07887253400002691705e+00,NULL,'null','','{"loader": "DataLoader", "dataset": "RemoteImages", "batch_size": 32, "framework": null}','null');
INSERT INTO "autotune_trials" VALUES(4,1,3,4,'complete','seeded','ok','',NULL,'{"num_workers": 100, "prefetch_factor": 8, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}',5.66762917889479194864e+03,2.66394100003708445001e-03,1.38222420000033707765e-02,4.67197405588862080261e-01,3.12742175954993512076e-03,3.56658322022534697917e-03,1.89764599500000485932e+00,3.34999999999999964472e+00,1.30999999999999605648e+00,1095275520,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}',746,23584,1.0322958446999962234e+01,0,NULL,NULL,1.79545603260885405544e+09,1.79545604297987389567e+09,'c8ae4db699e612db05a68eace82ab6377370a0d12c84fb4589464e8a6519e890',1,4.00602348699999311065e+00,NULL,'null','','{"loader": "DataLoader", "dataset": "RemoteImages", "batch_size": 32, "framework": null}','null');
INSERT INTO "autotune_trials" VALUES(5,2,0,5,'fail','baseline','crashed','ValueError: corrupt sample 20','crashed','{"num_workers": null, "prefetch_factor": null, "pin_memory": null, "persistent_workers": null, "batch_size": null, "num_streams": 0, "device": "cpu"}','{"num_workers": null, "prefetch_factor": null, "pin_memory": null, "persistent_workers": null, "batch_size": null, "num_streams": null, "device": "cpu"}',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": []}',0,0,1.47354930599999534024e+00,0,NULL,'  File "/work/main/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 725, in __next__
    data = self._next_data()
           ^^^^^^^^^^^^^^^^^
  File "/work/main/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 785, in _next_data
    data = self._dataset_fetcher.fetch(index)  # may raise StopIteration
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/main/.venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 54, in fetch
    data = [self.dataset[idx] for idx in possibly_batched_index]
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/main/.venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 54, in <listcomp>
    data = [self.dataset[idx] for idx in possibly_batched_index]
            ~~~~~~~~~~~~^^^^^
  File "/tmp/frozen-src/tests/scripts/tiny.py", line 24, in __getitem__
    raise ValueError(f"corrupt sample {i}")
ValueError: corrupt sample 20',1.79545604782082509993e+09,1.79545604782082509993e+09,'306bc1109d3506022e85813c1f44e1bf7b8fce60aa688a6f503c8926c217d0a0',NULL,NULL,NULL,'null','','null','null');
INSERT INTO "autotune_trials" VALUES(6,3,0,6,'complete','baseline','ok','',NULL,'{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}',6.70786413159016774426e+02,1.18655830000307105365e-02,1.23100779999845144629e-02,8.08141857899814297638e-01,9.63793229412350863083e-03,2.28810791764130164877e-03,1.22697430000471285893e-02,1.09999999999999875655e-01,0.0,155488256,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}',129,960,6.4707881260000021939e+00,0,NULL,NULL,1.79545605762356805801e+09,1.79545605762356805801e+09,'6194556c9bf8d3f5a35f8549cea027ef797492e5d822122959e07d1133e3d134',1,5.30618567000033181102e-01,1.68414932738453149794e+05,'{"0": 168414.93273845315, "2": 5232.689944591497}','','{"loader": "DataLoader", "dataset": "Tiny", "batch_size": 8, "framework": null}','null');
INSERT INTO "autotune_trials" VALUES(7,3,1,7,'waiting','seeded',NULL,NULL,NULL,'null','null',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'null',NULL,NULL,NULL,0,NULL,NULL,NULL,NULL,'b2845e0dd145c45e49253ad01fad0dda7bca918b6eed300664fd0a437271d638',NULL,NULL,NULL,'null',NULL,'null','null');
INSERT INTO "autotune_trials" VALUES(8,4,0,8,'fail','baseline','ended_early','the script ended after 10 batches, before 5 measurement windows were complete (0 done); figures cover what there was','ended_early','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}',NULL,NULL,NULL,NULL,NULL,NULL,4.35486400000399953569e-02,NULL,NULL,155463680,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": []}',10,4,2.94051123299999517257e+00,1,NULL,'',1795456066.68566,1795456066.68566,'dd82b93fe4f3120a34fed912f6a6850bb414eca94759e76b34d77f9aaa1e96ca',NULL,NULL,NULL,'null','','{"loader": "DataLoader", "dataset": "Tiny", "batch_size": 4, "framework": null}','null');
INSERT INTO "autotune_trials" VALUES(9,5,0,9,'complete','baseline','ok','',NULL,'{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}',2.11728844387185176855e+02,1.29069046999973124911e-01,2.43237538999949265416e-01,7.18869906323112206614e-01,1.0518592757894769385e-01,0.0411353005789459,1.07080503000020144099e-01,8.00000000000000266453e-01,0.0,236650496,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}',35,832,1.63201199849999625257e+01,0,NULL,NULL,1.79545612056672406189e+09,1.79545612056672406189e+09,'197eafff4203ffa3aac56c82c48fe86661665d03aba2b212b3e91c26c8596f4e',1,2.64437070600001788989e+00,2.92021542297306470579e+05,'{"0": 292021.54229730647, "2": 7770.491332008233}','','{"loader": "DataLoader", "dataset": "ShardedRemoteImages", "batch_size": 32, "framework": null}','null');
INSERT INTO "autotune_trials" VALUES(10,5,1,10,'complete','seeded','ok','',NULL,'{"num_workers": 4, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}',3.29900124026133426016e+02,3.568568999997978608e-02,1.90509249000001545937e-01,1.04432041871419648004e-01,7.27054476922790043902e-03,6.23493213076955765661e-02,3.45124259000044730782e-01,1.99000000000000021316e+00,0.14,279010304,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}',52,1376,1.18344530929999791624e+01,0,NULL,NULL,1.79545612092455697059e+09,1795456132.90944,'6f71e120876e9a9fd9bb4c45836a08ae2c81056328c155384a8ca24059c4931a',1,1.69736129599999685524e+00,NULL,'null','','{"loader": "DataLoader", "dataset": "ShardedRemoteImages", "batch_size": 32, "framework": null}','null');
INSERT INTO "autotune_trials" VALUES(11,5,2,11,'complete','seeded','ok','',NULL,'{"num_workers": 8, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}',2.53027413701649749109e+02,1.14323701999978766252e-01,3.70645815999978367472e-01,1.39895276258417022852e-01,2.11391768181747666255e-02,1.29967975500007187905e-01,5.46839820000002418964e-01,1.29,0.16,344762026,'{"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}',55,1472,1.61062302930000100786e+01,0,NULL,NULL,1.79545613303763294224e+09,1.79545614946496391289e+09,'7970606778ef003207360ae544e1dd0a8490b59ff04305dd8fbb704de8e629e8',1,4.96411864999998897474e+00,NULL,'null','','{"loader": "DataLoader", "dataset": "ShardedRemoteImages", "batch_size": 32, "framework": null}','null');
CREATE TABLE autotune_windows (
	trial_id INTEGER NOT NULL, 
	idx INTEGER NOT NULL, 
	samples_per_s FLOAT NOT NULL, 
	CONSTRAINT pk_autotune_windows PRIMARY KEY (trial_id, idx), 
	CONSTRAINT fk_autotune_windows_trial_id_autotune_trials FOREIGN KEY(trial_id) REFERENCES autotune_trials (id) ON DELETE CASCADE
);
INSERT INTO "autotune_windows" VALUES(1,0,2.22150980793872179211e+02);
INSERT INTO "autotune_windows" VALUES(1,1,2.17818515338567209472e+02);
INSERT INTO "autotune_windows" VALUES(2,0,3873.63091321955);
INSERT INTO "autotune_windows" VALUES(2,1,4.01510128606144917279e+03);
INSERT INTO "autotune_windows" VALUES(3,0,5.10252262568259538954e+03);
INSERT INTO "autotune_windows" VALUES(3,1,5.36778927922063212475e+03);
INSERT INTO "autotune_windows" VALUES(3,2,2.1609876892459542433e+03);
INSERT INTO "autotune_windows" VALUES(3,3,4.0928665832012056853e+03);
INSERT INTO "autotune_windows" VALUES(3,4,4.01996178763330181023e+03);
INSERT INTO "autotune_windows" VALUES(4,0,3.92153692058022761562e+03);
INSERT INTO "autotune_windows" VALUES(4,1,5.66762917889479194864e+03);
INSERT INTO "autotune_windows" VALUES(4,2,6.3660386226730979616e+03);
INSERT INTO "autotune_windows" VALUES(4,3,1635.26392233694);
INSERT INTO "autotune_windows" VALUES(4,4,6.64900499408395626249e+03);
INSERT INTO "autotune_windows" VALUES(6,0,6.64438752115964234709e+02);
INSERT INTO "autotune_windows" VALUES(6,1,6.77134074202069200518e+02);
INSERT INTO "autotune_windows" VALUES(9,0,1.67156593064260732724e+02);
INSERT INTO "autotune_windows" VALUES(9,1,1.78080261282022348726e+02);
INSERT INTO "autotune_windows" VALUES(9,2,2.11728844387185176855e+02);
INSERT INTO "autotune_windows" VALUES(9,3,2.93912949656145769958e+02);
INSERT INTO "autotune_windows" VALUES(9,4,2.47207760820354735639e+02);
INSERT INTO "autotune_windows" VALUES(10,0,2.18923665152544856473e+02);
INSERT INTO "autotune_windows" VALUES(10,1,1.79552940559817756143e+02);
INSERT INTO "autotune_windows" VALUES(10,2,753.723581451143);
INSERT INTO "autotune_windows" VALUES(10,3,3.29900124026133426016e+02);
INSERT INTO "autotune_windows" VALUES(10,4,8.88236942359335330393e+02);
INSERT INTO "autotune_windows" VALUES(11,0,2.53027413701649749109e+02);
INSERT INTO "autotune_windows" VALUES(11,1,2.88261978972378869919e+02);
INSERT INTO "autotune_windows" VALUES(11,2,1.08013770243516745491e+02);
INSERT INTO "autotune_windows" VALUES(11,3,3.55585778371231583613e+02);
INSERT INTO "autotune_windows" VALUES(11,4,1.32652960902863640061e+02);
CREATE TABLE studies (
	study_id INTEGER NOT NULL, 
	study_name VARCHAR(512) NOT NULL, 
	PRIMARY KEY (study_id)
);
INSERT INTO "studies" VALUES(1,'latency');
INSERT INTO "studies" VALUES(2,'crash');
INSERT INTO "studies" VALUES(3,'workers');
INSERT INTO "studies" VALUES(4,'short');
INSERT INTO "studies" VALUES(5,'flaky');
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
INSERT INTO "study_directions" VALUES(2,'MAXIMIZE',2,0);
INSERT INTO "study_directions" VALUES(3,'MAXIMIZE',3,0);
INSERT INTO "study_directions" VALUES(4,'MAXIMIZE',4,0);
INSERT INTO "study_directions" VALUES(5,'MAXIMIZE',5,0);
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
INSERT INTO "study_user_attributes" VALUES(1,1,'script','"/tmp/frozen-src/examples/io_bound.py"');
INSERT INTO "study_user_attributes" VALUES(2,1,'args','[]');
INSERT INTO "study_user_attributes" VALUES(3,1,'hardware','{"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}');
INSERT INTO "study_user_attributes" VALUES(4,1,'nproc_per_node','1');
INSERT INTO "study_user_attributes" VALUES(5,1,'script_sha256','"47aec5a855655a869d72396f37496593cba803de0a423e28794d97947dcd38e2"');
INSERT INTO "study_user_attributes" VALUES(6,1,'autotune_version','"0.1.0"');
INSERT INTO "study_user_attributes" VALUES(7,1,'created_at','1795455999.7940433');
INSERT INTO "study_user_attributes" VALUES(8,1,'host','"vm"');
INSERT INTO "study_user_attributes" VALUES(9,1,'ceiling','{"samples_per_s": 9297.87454281768, "windows": [9522.135409003205, 9073.613676632158], "interference_cores": [0.03994210599433598, 0.03993681253432016], "interference_limits": [0.5, 0.5], "disturbed": [false, false], "cpu_count": 2, "transport_samples_per_s": 698401.5908313767, "transport_by_workers": {"0": 698401.5908313767, "2": 14310.906340922345}, "transport_reason": "", "status": "ok"}');
INSERT INTO "study_user_attributes" VALUES(10,1,'seeded','true');
INSERT INTO "study_user_attributes" VALUES(11,1,'predicted_workers','50');
INSERT INTO "study_user_attributes" VALUES(12,1,'seed','{"predicted": 50, "cap": 2492, "reason": "open files: 20000"}');
INSERT INTO "study_user_attributes" VALUES(13,1,'confirmation','{"winner": 3, "median": 5667.629178894792, "ci95": [1635.26392233694, 6649.004994083956], "fastest": 3, "baseline_median": 219.9847480662197, "probe_seconds": 0.0, "candidates": [{"trial": 3, "config": {"num_workers": 100, "prefetch_factor": 8, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "median": 5667.629178894792, "ci95": [1635.26392233694, 6649.004994083956], "runs": 1, "windows": [3921.5369205802276, 5667.629178894792, 6366.038622673098, 1635.26392233694, 6649.004994083956], "interference_cores": [0.1459222863430424, 0.096860361597388, 0.13925959156653994, 0.24668875020826364, 0.23973693570153115], "interference_limits": [0.5, 0.5, 0.5, 0.5, 0.5], "disturbed": [false, false, false, false, false], "cpu_count": 2}, {"trial": 2, "config": {"num_workers": 100, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "median": 4092.8665832012057, "ci95": [2160.9876892459542, 5367.789279220632], "runs": 1, "windows": [5102.522625682595, 5367.789279220632, 2160.9876892459542, 4092.8665832012057, 4019.961787633302], "interference_cores": [0.018992039549319318, 0.1397066891590983, 0.1842477799643149, 0.17973717464325661, 0.03927817330428635], "interference_limits": [0.5, 0.5, 0.5, 0.5, 0.5], "disturbed": [false, false, false, false, false], "cpu_count": 2}], "skipped": true, "why": "#3, #2 are within 3% of each other, all clearly above the baseline: a tie, decided without a re-measure for the cheapest within 3% of the fastest", "interval": "order statistics of the 5 windows of one probe (covers the median with 93.8% probability); within-probe noise only: drift between probes is not in it"}');
INSERT INTO "study_user_attributes" VALUES(14,1,'diagnosis','{"bottleneck": "input-latency", "summary": "93% of each step waits for data; loading uses 0.13 CPU-s per second: latency-bound, more workers help (tens are fine)."}');
INSERT INTO "study_user_attributes" VALUES(15,1,'stop_reason','"2 trials in a row brought no gain beyond noise"');
INSERT INTO "study_user_attributes" VALUES(16,2,'script','"/tmp/frozen-src/tests/scripts/crash_in_worker.py"');
INSERT INTO "study_user_attributes" VALUES(17,2,'args','[]');
INSERT INTO "study_user_attributes" VALUES(18,2,'hardware','{"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}');
INSERT INTO "study_user_attributes" VALUES(19,2,'nproc_per_node','1');
INSERT INTO "study_user_attributes" VALUES(20,2,'script_sha256','"ba4f532a366ab89da129709b2f8384e4fbc723ba272fc9b256a7589b4a3ca654"');
INSERT INTO "study_user_attributes" VALUES(21,2,'autotune_version','"0.1.0"');
INSERT INTO "study_user_attributes" VALUES(22,2,'created_at','1795456046.3311725');
INSERT INTO "study_user_attributes" VALUES(23,2,'host','"vm"');
INSERT INTO "study_user_attributes" VALUES(24,2,'diagnosis','{"bottleneck": "unknown", "summary": "no measurement to diagnose (crashed)."}');
INSERT INTO "study_user_attributes" VALUES(25,2,'stop_reason','"the script as written failed (crashed): ValueError: corrupt sample 20"');
INSERT INTO "study_user_attributes" VALUES(26,3,'script','"/tmp/frozen-src/tests/scripts/basic.py"');
INSERT INTO "study_user_attributes" VALUES(27,3,'args','[]');
INSERT INTO "study_user_attributes" VALUES(28,3,'hardware','{"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}');
INSERT INTO "study_user_attributes" VALUES(29,3,'nproc_per_node','1');
INSERT INTO "study_user_attributes" VALUES(30,3,'script_sha256','"7e8a21fa5873e6a67b5481b68516c3cf1bf60299a79d142ea6c90a11069b0c43"');
INSERT INTO "study_user_attributes" VALUES(31,3,'autotune_version','"0.1.0"');
INSERT INTO "study_user_attributes" VALUES(32,3,'created_at','1795456051.125997');
INSERT INTO "study_user_attributes" VALUES(33,3,'host','"vm"');
INSERT INTO "study_user_attributes" VALUES(34,3,'worker_options','{"trials": 4, "trial_timeout_s": 120.0, "settings": {"warmup_batches": 5, "warmup_s": 0.3, "max_warmup_s": 30.0, "steady_tolerance": 0.05, "window_s": 0.5, "windows": 5, "min_windows": 0, "settled_spread": 0.05, "min_batches_per_window": 3, "ceiling_cache_batches": 8, "transport": true, "transport_workers": 8, "max_host_mem_bytes": 12638251008, "sample_interval_s": 0.1, "script_batches": null}, "tune_batch_size": false, "max_workers": null, "max_gpu_mem_bytes": null, "patience": 2, "min_windows": 2}');
INSERT INTO "study_user_attributes" VALUES(35,3,'ceiling','{"samples_per_s": 3428.9963604566565, "windows": [3460.2661820128487, 3397.7265389004647], "interference_cores": [0.9168032756695765, 0.13957887657147594], "interference_limits": [0.5, 0.5], "disturbed": [true, false], "cpu_count": 2, "transport_samples_per_s": 168414.93273845315, "transport_by_workers": {"0": 168414.93273845315, "2": 5232.689944591497}, "transport_reason": "", "status": "ok"}');
INSERT INTO "study_user_attributes" VALUES(36,3,'seeded','true');
INSERT INTO "study_user_attributes" VALUES(37,3,'predicted_workers','6');
INSERT INTO "study_user_attributes" VALUES(38,3,'seed','{"predicted": 6, "cap": 2492, "reason": "open files: 20000"}');
INSERT INTO "study_user_attributes" VALUES(39,3,'diagnosis','{"bottleneck": "input-latency", "summary": "81% of each step waits for data; loading uses 0.00 CPU-s per second: latency-bound, more workers help (tens are fine)."}');
INSERT INTO "study_user_attributes" VALUES(40,3,'stop_reason','"created for `autotune worker`: baseline measured, seeds enqueued"');
INSERT INTO "study_user_attributes" VALUES(41,4,'script','"/tmp/frozen-src/tests/scripts/ends_early.py"');
INSERT INTO "study_user_attributes" VALUES(42,4,'args','[]');
INSERT INTO "study_user_attributes" VALUES(43,4,'hardware','{"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}');
INSERT INTO "study_user_attributes" VALUES(44,4,'nproc_per_node','1');
INSERT INTO "study_user_attributes" VALUES(45,4,'script_sha256','"806fffad05e21096748e176e194afbf191d04e0623dc1501ca444b6fcfac25c2"');
INSERT INTO "study_user_attributes" VALUES(46,4,'autotune_version','"0.1.0"');
INSERT INTO "study_user_attributes" VALUES(47,4,'created_at','1795456063.4761434');
INSERT INTO "study_user_attributes" VALUES(48,4,'host','"vm"');
INSERT INTO "study_user_attributes" VALUES(49,4,'script_batches','10');
INSERT INTO "study_user_attributes" VALUES(50,4,'verdict','"the script iterates 10 batches (4 samples) in 2.9 s and ends before a steady rate can be measured: loading is not worth tuning; keep the script''s own settings"');
INSERT INTO "study_user_attributes" VALUES(51,4,'diagnosis','{"bottleneck": "unknown", "summary": "no measurement to diagnose (ended_early)."}');
INSERT INTO "study_user_attributes" VALUES(52,4,'stop_reason','"the script iterates 10 batches (4 samples) in 2.9 s and ends before a steady rate can be measured: loading is not worth tuning; keep the script''s own settings"');
INSERT INTO "study_user_attributes" VALUES(53,5,'script','"/tmp/frozen-src/examples/flaky_workers.py"');
INSERT INTO "study_user_attributes" VALUES(54,5,'args','[]');
INSERT INTO "study_user_attributes" VALUES(55,5,'hardware','{"cpu_model": "AMD EPYC", "cpu_count": 2, "memory_gb": 24, "gpu_model": null, "gpu_count": 0, "driver": null, "torch": "2.13.0", "cuda": null, "platform": "linux", "id": "692a9c2ad1db"}');
INSERT INTO "study_user_attributes" VALUES(56,5,'nproc_per_node','1');
INSERT INTO "study_user_attributes" VALUES(57,5,'script_sha256','"d27c0fe81263c704ca3a5a21555efe55a5f1381178d5b58ab56b5a4cfaca3d9b"');
INSERT INTO "study_user_attributes" VALUES(58,5,'autotune_version','"0.1.0"');
INSERT INTO "study_user_attributes" VALUES(59,5,'created_at','1795456104.20002');
INSERT INTO "study_user_attributes" VALUES(60,5,'host','"vm"');
INSERT INTO "study_user_attributes" VALUES(61,5,'ceiling','{"samples_per_s": 853.4805402344795, "windows": [1050.5037863738837, 1244.7095831445706, 291.17000217169505, 742.1603787280037, 853.4805402344795], "interference_cores": [0.9075902796610069, 0.9335831936493313, 1.4406991713685988, 1.4108662826046068, 1.4669163480533645], "interference_limits": [0.5, 0.5, 0.5, 0.5, 0.5], "disturbed": [true, true, true, true, true], "cpu_count": 2, "transport_samples_per_s": 292021.54229730647, "transport_by_workers": {"0": 292021.54229730647, "2": 7770.491332008233}, "transport_reason": "", "status": "ok"}');
INSERT INTO "study_user_attributes" VALUES(62,5,'seeded','true');
INSERT INTO "study_user_attributes" VALUES(63,5,'predicted_workers','4');
INSERT INTO "study_user_attributes" VALUES(64,5,'seed','{"predicted": 4, "cap": 2492, "reason": "open files: 20000"}');
INSERT INTO "study_user_attributes" VALUES(65,5,'extra_probe_seconds','30.023046618999956');
INSERT INTO "study_user_attributes" VALUES(66,5,'confirmation','{"winner": 1, "median": 287.02118150941186, "ci95": [111.14602910266444, 825.8978423472545], "fastest": 1, "baseline_median": 215.43819369660412, "probe_seconds": 30.023046618999956, "candidates": [{"trial": 1, "config": {"num_workers": 4, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "median": 287.02118150941186, "ci95": [111.14602910266444, 825.8978423472545], "runs": 2, "windows": [218.92366515254486, 179.55294055981776, 753.723581451143, 329.9001240261334, 888.2369423593353, 111.14602910266444, 64.98315523910874, 426.76874893852585, 825.8978423472545, 244.14223899269027], "interference_cores": [1.2999177569402285, 1.2343541658608215, 0.9815032531866816, 1.271496034381659, 1.2490282683984302, 1.5861548989367238, 1.6855764516310772, 1.4098408142447925, 1.0876848918908577, 1.2397975013181686], "interference_limits": [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], "disturbed": [true, true, true, true, true, true, true, true, true, true], "cpu_count": 2}], "skipped": false, "why": "#1, #2 are within 3% of each other, and #1, the fastest and the cheapest, is within 3% of the baseline: both re-measured interleaved", "interval": "order statistics of the 10 windows over 2 interleaved probes (covers the median with 97.9% probability)"}');
INSERT INTO "study_user_attributes" VALUES(67,5,'diagnosis','{"bottleneck": "input-latency", "summary": "10% of each step waits for data; loading uses 0.01 CPU-s per second: latency-bound, more workers help (tens are fine)."}');
INSERT INTO "study_user_attributes" VALUES(68,5,'stop_reason','"2 trials in a row brought no gain beyond noise"');
CREATE TABLE trial_heartbeats (
	trial_heartbeat_id INTEGER NOT NULL, 
	trial_id INTEGER NOT NULL, 
	heartbeat DATETIME NOT NULL, 
	PRIMARY KEY (trial_heartbeat_id), 
	UNIQUE (trial_id), 
	FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
INSERT INTO "trial_heartbeats" VALUES(1,2,'2026-11-23 17:46:53');
INSERT INTO "trial_heartbeats" VALUES(2,3,'2026-11-23 17:47:12.000000');
INSERT INTO "trial_heartbeats" VALUES(3,4,'2026-11-23 17:47:22.000000');
INSERT INTO "trial_heartbeats" VALUES(4,10,'2026-11-23 17:48:50.000000');
INSERT INTO "trial_heartbeats" VALUES(5,11,'2026-11-23 17:49:03.000000');
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
INSERT INTO "trial_intermediate_values" VALUES(1,1,0,2.22150980793872179211e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(2,1,1,2.17818515338567209472e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(3,2,0,3873.63091321955,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(4,2,1,4.01510128606144917279e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(5,3,0,5.10252262568259538954e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(6,3,1,5.36778927922063212475e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(7,3,2,2.1609876892459542433e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(8,3,3,4.0928665832012056853e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(9,3,4,4.01996178763330181023e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(10,4,0,3.92153692058022761562e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(11,4,1,5.66762917889479194864e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(12,4,2,6.3660386226730979616e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(13,4,3,1635.26392233694,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(14,4,4,6.64900499408395626249e+03,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(15,6,0,6.64438752115964234709e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(16,6,1,6.77134074202069200518e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(17,9,0,1.67156593064260732724e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(18,9,1,1.78080261282022348726e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(19,9,2,2.11728844387185176855e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(20,9,3,2.93912949656145769958e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(21,9,4,2.47207760820354735639e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(22,10,0,2.18923665152544856473e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(23,10,1,1.79552940559817756143e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(24,10,2,753.723581451143,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(25,10,3,3.29900124026133426016e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(26,10,4,8.88236942359335330393e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(27,11,0,2.53027413701649749109e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(28,11,1,2.88261978972378869919e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(29,11,2,1.08013770243516745491e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(30,11,3,3.55585778371231583613e+02,'FINITE');
INSERT INTO "trial_intermediate_values" VALUES(31,11,4,1.32652960902863640061e+02,'FINITE');
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
INSERT INTO "trial_params" VALUES(1,1,'num_workers',0.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 32}}');
INSERT INTO "trial_params" VALUES(2,2,'num_workers',50.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 100}}');
INSERT INTO "trial_params" VALUES(3,2,'prefetch_factor',2.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 1, "high": 8}}');
INSERT INTO "trial_params" VALUES(4,2,'persistent_workers',1.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
INSERT INTO "trial_params" VALUES(5,3,'num_workers',100.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 100}}');
INSERT INTO "trial_params" VALUES(6,3,'prefetch_factor',2.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 1, "high": 8}}');
INSERT INTO "trial_params" VALUES(7,3,'persistent_workers',1.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
INSERT INTO "trial_params" VALUES(8,4,'num_workers',100.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 100}}');
INSERT INTO "trial_params" VALUES(9,4,'prefetch_factor',8.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 1, "high": 8}}');
INSERT INTO "trial_params" VALUES(10,4,'persistent_workers',1.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
INSERT INTO "trial_params" VALUES(11,6,'num_workers',0.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 32}}');
INSERT INTO "trial_params" VALUES(12,8,'num_workers',0.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 32}}');
INSERT INTO "trial_params" VALUES(13,9,'num_workers',0.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 32}}');
INSERT INTO "trial_params" VALUES(14,10,'num_workers',4.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 32}}');
INSERT INTO "trial_params" VALUES(15,10,'prefetch_factor',2.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 1, "high": 8}}');
INSERT INTO "trial_params" VALUES(16,10,'persistent_workers',1.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
INSERT INTO "trial_params" VALUES(17,11,'num_workers',8.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 0, "high": 32}}');
INSERT INTO "trial_params" VALUES(18,11,'prefetch_factor',2.0,'{"name": "IntDistribution", "attributes": {"log": false, "step": 1, "low": 1, "high": 8}}');
INSERT INTO "trial_params" VALUES(19,11,'persistent_workers',1.0,'{"name": "CategoricalDistribution", "attributes": {"choices": [false, true]}}');
CREATE TABLE trial_system_attributes (
	trial_system_attribute_id INTEGER NOT NULL, 
	trial_id INTEGER, 
	"key" VARCHAR(512), 
	value_json TEXT, 
	PRIMARY KEY (trial_system_attribute_id), 
	UNIQUE (trial_id, "key"), 
	FOREIGN KEY(trial_id) REFERENCES trials (trial_id)
);
INSERT INTO "trial_system_attributes" VALUES(1,2,'fixed_params','{"num_workers": 50, "prefetch_factor": 2, "persistent_workers": true}');
INSERT INTO "trial_system_attributes" VALUES(2,2,'constraints:host_memory','-11928872448.0');
INSERT INTO "trial_system_attributes" VALUES(3,2,'constraints:gpu_memory','0.0');
INSERT INTO "trial_system_attributes" VALUES(4,3,'fixed_params','{"num_workers": 100, "prefetch_factor": 2, "persistent_workers": true}');
INSERT INTO "trial_system_attributes" VALUES(5,3,'constraints:host_memory','-11424838656.0');
INSERT INTO "trial_system_attributes" VALUES(6,3,'constraints:gpu_memory','0.0');
INSERT INTO "trial_system_attributes" VALUES(7,4,'fixed_params','{"num_workers": 100, "prefetch_factor": 8, "persistent_workers": true}');
INSERT INTO "trial_system_attributes" VALUES(8,4,'constraints:host_memory','-11542975488.0');
INSERT INTO "trial_system_attributes" VALUES(9,4,'constraints:gpu_memory','0.0');
INSERT INTO "trial_system_attributes" VALUES(10,7,'fixed_params','{"num_workers": 6, "prefetch_factor": 2, "persistent_workers": true}');
INSERT INTO "trial_system_attributes" VALUES(11,10,'fixed_params','{"num_workers": 4, "prefetch_factor": 2, "persistent_workers": true}');
INSERT INTO "trial_system_attributes" VALUES(12,10,'constraints:host_memory','-12359240704.0');
INSERT INTO "trial_system_attributes" VALUES(13,10,'constraints:gpu_memory','0.0');
INSERT INTO "trial_system_attributes" VALUES(14,11,'fixed_params','{"num_workers": 8, "prefetch_factor": 2, "persistent_workers": true}');
INSERT INTO "trial_system_attributes" VALUES(15,11,'constraints:host_memory','-12293488982.0');
INSERT INTO "trial_system_attributes" VALUES(16,11,'constraints:gpu_memory','0.0');
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
INSERT INTO "trial_user_attributes" VALUES(5,1,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(6,1,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "applied_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [222.15098079387218, 217.8185153385672], "interference_cores": [0.13884141163427613, 0.0], "samples_per_s": 219.9847480662197, "step_p50_s": 0.1444798750000018, "step_p95_s": 0.1565164520000053, "data_wait_fraction": 0.9294123072251421, "wait_per_batch_s": 0.13520972837501688, "compute_per_batch_s": 0.010269008374983457, "time_to_first_batch_s": 0.1418717429999674, "steady_state": true, "warmup_s_used": 4.709702400999959, "batches": 30, "samples": 672, "batch_size": 32, "main_cpu_s": 0.22000000000000064, "worker_cpu_s": 0, "measured_wall_s": 1.1638298940000027, "epoch_starts": 0, "epoch_windows": false, "startup_fraction": 0.0, "peak_rss_bytes": 242573312, "transport_samples_per_s": 698401.5908313767, "transport_by_workers": {"0": 698401.5908313767, "2": 14310.906340922345}, "transport_reason": "", "ceiling_windows": [9522.135409003205, 9073.613676632158], "ceiling_interference_cores": [0.03994210599433598, 0.03993681253432016], "ceiling_samples_per_s": 9297.87454281768, "ceiling_status": "ok", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}, "profile_path": null, "measured_loader": {"loader": "DataLoader", "dataset": "RemoteImages", "batch_size": 32, "framework": null}, "script_batches": null, "not_applied": "", "ranks": null, "wall_s": 13.723741957000016, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(7,1,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(8,2,'role','"seeded"');
INSERT INTO "trial_user_attributes" VALUES(9,2,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(10,2,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(11,2,'config','{"num_workers": 50, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(12,2,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(13,2,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "applied_config": {"num_workers": 50, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [3873.63091321955, 4015.101286061449], "interference_cores": [0.028371441093284083, 0.058815117869653925], "samples_per_s": 3944.3660996404997, "step_p50_s": 0.00433587599997054, "step_p95_s": 0.01652281200000516, "data_wait_fraction": 0.4370729557618934, "wait_per_batch_s": 0.003676999737112924, "compute_per_batch_s": 0.004735782817010746, "time_to_first_batch_s": 0.792861122999966, "steady_state": true, "warmup_s_used": 2.608251967000001, "batches": 589, "samples": 18560, "batch_size": 32, "main_cpu_s": 3.750000000000001, "worker_cpu_s": 1.4700000000000009, "measured_wall_s": 3.264159630999984, "epoch_starts": 3, "epoch_windows": true, "startup_fraction": 0.23136902399857562, "peak_rss_bytes": 709378560, "transport_samples_per_s": null, "transport_by_workers": null, "transport_reason": "", "ceiling_windows": [], "ceiling_interference_cores": [], "ceiling_samples_per_s": null, "ceiling_status": "", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}, "profile_path": null, "measured_loader": {"loader": "DataLoader", "dataset": "RemoteImages", "batch_size": 32, "framework": null}, "script_batches": null, "not_applied": "", "ranks": null, "wall_s": 8.373137275000033, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(14,2,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(15,3,'role','"seeded"');
INSERT INTO "trial_user_attributes" VALUES(16,3,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(17,3,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(18,3,'config','{"num_workers": 100, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(19,3,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(20,3,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "applied_config": {"num_workers": 100, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [5102.522625682595, 5367.789279220632, 2160.9876892459542, 4092.8665832012057, 4019.961787633302], "interference_cores": [0.018992039549319318, 0.1397066891590983, 0.1842477799643149, 0.17973717464325661, 0.03927817330428635], "samples_per_s": 4092.8665832012057, "step_p50_s": 0.002884839000046213, "step_p95_s": 0.02774436199996444, "data_wait_fraction": 0.45728659724312265, "wait_per_batch_s": 0.003616541644117052, "compute_per_batch_s": 0.004292156458823998, "time_to_first_batch_s": 1.5156235100000117, "steady_state": true, "warmup_s_used": 4.078872534000027, "batches": 641, "samples": 20224, "batch_size": 32, "main_cpu_s": 2.99, "worker_cpu_s": 1.259999999999997, "measured_wall_s": 2.688957354999957, "epoch_starts": 3, "epoch_windows": false, "startup_fraction": 0.26260357371862963, "peak_rss_bytes": 1213412352, "transport_samples_per_s": null, "transport_by_workers": null, "transport_reason": "", "ceiling_windows": [], "ceiling_interference_cores": [], "ceiling_samples_per_s": null, "ceiling_status": "", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}, "profile_path": null, "measured_loader": {"loader": "DataLoader", "dataset": "RemoteImages", "batch_size": 32, "framework": null}, "script_batches": null, "not_applied": "", "ranks": null, "wall_s": 10.145206796000025, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(21,3,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(22,4,'role','"seeded"');
INSERT INTO "trial_user_attributes" VALUES(23,4,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(24,4,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(25,4,'config','{"num_workers": 100, "prefetch_factor": 8, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(26,4,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(27,4,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "applied_config": {"num_workers": 100, "prefetch_factor": 8, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [3921.5369205802276, 5667.629178894792, 6366.038622673098, 1635.26392233694, 6649.004994083956], "interference_cores": [0.1459222863430424, 0.096860361597388, 0.13925959156653994, 0.24668875020826364, 0.23973693570153115], "samples_per_s": 5667.629178894792, "step_p50_s": 0.0026639410000370845, "step_p95_s": 0.01382224200000337, "data_wait_fraction": 0.4671974055888621, "wait_per_batch_s": 0.003127421759549935, "compute_per_batch_s": 0.003566583220225347, "time_to_first_batch_s": 1.8976459950000049, "steady_state": true, "warmup_s_used": 4.006023486999993, "batches": 746, "samples": 23584, "batch_size": 32, "main_cpu_s": 3.3499999999999996, "worker_cpu_s": 1.309999999999996, "measured_wall_s": 2.9788322160000007, "epoch_starts": 3, "epoch_windows": false, "startup_fraction": 0.32750144864150865, "peak_rss_bytes": 1095275520, "transport_samples_per_s": null, "transport_by_workers": null, "transport_reason": "", "ceiling_windows": [], "ceiling_interference_cores": [], "ceiling_samples_per_s": null, "ceiling_status": "", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}, "profile_path": null, "measured_loader": {"loader": "DataLoader", "dataset": "RemoteImages", "batch_size": 32, "framework": null}, "script_batches": null, "not_applied": "", "ranks": null, "wall_s": 10.322958446999962, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(28,4,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(29,5,'role','"baseline"');
INSERT INTO "trial_user_attributes" VALUES(30,5,'status','"crashed"');
INSERT INTO "trial_user_attributes" VALUES(31,5,'reason','"ValueError: corrupt sample 20"');
INSERT INTO "trial_user_attributes" VALUES(32,5,'config','{"num_workers": null, "prefetch_factor": null, "pin_memory": null, "persistent_workers": null, "batch_size": null, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(33,5,'script_config','{"num_workers": null, "prefetch_factor": null, "pin_memory": null, "persistent_workers": null, "batch_size": null, "num_streams": null, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(34,5,'result','{"status": "crashed", "reason": "ValueError: corrupt sample 20", "script_config": {"num_workers": null, "prefetch_factor": null, "pin_memory": null, "persistent_workers": null, "batch_size": null, "num_streams": null, "device": "cpu"}, "applied_config": {"num_workers": null, "prefetch_factor": null, "pin_memory": null, "persistent_workers": null, "batch_size": null, "num_streams": 0, "device": "cpu"}, "windows": [], "interference_cores": [], "samples_per_s": null, "step_p50_s": null, "step_p95_s": null, "data_wait_fraction": null, "wait_per_batch_s": null, "compute_per_batch_s": null, "time_to_first_batch_s": null, "steady_state": null, "warmup_s_used": null, "batches": 0, "samples": 0, "batch_size": null, "main_cpu_s": null, "worker_cpu_s": null, "measured_wall_s": null, "epoch_starts": 0, "epoch_windows": false, "startup_fraction": null, "peak_rss_bytes": null, "transport_samples_per_s": null, "transport_by_workers": null, "transport_reason": "", "ceiling_windows": [], "ceiling_interference_cores": [], "ceiling_samples_per_s": null, "ceiling_status": "not measured: the baseline''s windows were not complete", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": []}, "profile_path": null, "measured_loader": null, "script_batches": null, "not_applied": "", "ranks": null, "wall_s": 1.4735493059999953, "exit_code": 1}');
INSERT INTO "trial_user_attributes" VALUES(35,5,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(36,5,'output_tail','"  File \"/work/main/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py\", line 725, in __next__\n    data = self._next_data()\n           ^^^^^^^^^^^^^^^^^\n  File \"/work/main/.venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py\", line 785, in _next_data\n    data = self._dataset_fetcher.fetch(index)  # may raise StopIteration\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File \"/work/main/.venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py\", line 54, in fetch\n    data = [self.dataset[idx] for idx in possibly_batched_index]\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File \"/work/main/.venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py\", line 54, in <listcomp>\n    data = [self.dataset[idx] for idx in possibly_batched_index]\n            ~~~~~~~~~~~~^^^^^\n  File \"/tmp/frozen-src/tests/scripts/tiny.py\", line 24, in __getitem__\n    raise ValueError(f\"corrupt sample {i}\")\nValueError: corrupt sample 20"');
INSERT INTO "trial_user_attributes" VALUES(37,6,'role','"baseline"');
INSERT INTO "trial_user_attributes" VALUES(38,6,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(39,6,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(40,6,'config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(41,6,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(42,6,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}, "applied_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 8, "num_streams": 0, "device": "cpu"}, "windows": [664.4387521159642, 677.1340742020692], "interference_cores": [0.13844182945671554, 0.13777733470337677], "samples_per_s": 670.7864131590168, "step_p50_s": 0.01186558300003071, "step_p95_s": 0.012310077999984514, "data_wait_fraction": 0.8081418578998143, "wait_per_batch_s": 0.009637932294123509, "compute_per_batch_s": 0.0022881079176413016, "time_to_first_batch_s": 0.012269743000047129, "steady_state": true, "warmup_s_used": 0.5306185670000332, "batches": 129, "samples": 960, "batch_size": 8, "main_cpu_s": 0.10999999999999988, "worker_cpu_s": 0, "measured_wall_s": 1.013713418000009, "epoch_starts": 2, "epoch_windows": false, "startup_fraction": 0.018668296842006174, "peak_rss_bytes": 155488256, "transport_samples_per_s": 168414.93273845315, "transport_by_workers": {"0": 168414.93273845315, "2": 5232.689944591497}, "transport_reason": "", "ceiling_windows": [3460.2661820128487, 3397.7265389004647], "ceiling_interference_cores": [0.9168032756695765, 0.13957887657147594], "ceiling_samples_per_s": 3428.9963604566565, "ceiling_status": "ok", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}, "profile_path": null, "measured_loader": {"loader": "DataLoader", "dataset": "Tiny", "batch_size": 8, "framework": null}, "script_batches": null, "not_applied": "", "ranks": null, "wall_s": 6.470788126000002, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(43,6,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(44,7,'role','"seeded"');
INSERT INTO "trial_user_attributes" VALUES(45,8,'role','"baseline"');
INSERT INTO "trial_user_attributes" VALUES(46,8,'status','"ended_early"');
INSERT INTO "trial_user_attributes" VALUES(47,8,'reason','"the script ended after 10 batches, before 5 measurement windows were complete (0 done); figures cover what there was"');
INSERT INTO "trial_user_attributes" VALUES(48,8,'config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(49,8,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(50,8,'result','{"status": "ended_early", "reason": "the script ended after 10 batches, before 5 measurement windows were complete (0 done); figures cover what there was", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}, "applied_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 4, "num_streams": 0, "device": "cpu"}, "windows": [], "interference_cores": [], "samples_per_s": null, "step_p50_s": null, "step_p95_s": null, "data_wait_fraction": null, "wait_per_batch_s": null, "compute_per_batch_s": null, "time_to_first_batch_s": 0.043548640000039995, "steady_state": null, "warmup_s_used": null, "batches": 10, "samples": 4, "batch_size": null, "main_cpu_s": null, "worker_cpu_s": null, "measured_wall_s": null, "epoch_starts": 0, "epoch_windows": false, "startup_fraction": null, "peak_rss_bytes": 155463680, "transport_samples_per_s": null, "transport_by_workers": null, "transport_reason": "", "ceiling_windows": [], "ceiling_interference_cores": [], "ceiling_samples_per_s": null, "ceiling_status": "not measured: the baseline''s windows were not complete", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": []}, "profile_path": null, "measured_loader": {"loader": "DataLoader", "dataset": "Tiny", "batch_size": 4, "framework": null}, "script_batches": 10, "not_applied": "", "ranks": null, "wall_s": 2.940511232999995, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(51,8,'partial','true');
INSERT INTO "trial_user_attributes" VALUES(52,8,'output_tail','""');
INSERT INTO "trial_user_attributes" VALUES(53,9,'role','"baseline"');
INSERT INTO "trial_user_attributes" VALUES(54,9,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(55,9,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(56,9,'config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(57,9,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(58,9,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "applied_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [167.15659306426073, 178.08026128202235, 211.72884438718518, 293.91294965614577, 247.20776082035474], "interference_cores": [1.6714190914976104, 1.6140072977618662, 1.6044938266107158, 1.8184136901394337, 1.7384536774414365], "samples_per_s": 211.72884438718518, "step_p50_s": 0.12906904699997312, "step_p95_s": 0.24323753899994927, "data_wait_fraction": 0.7188699063231122, "wait_per_batch_s": 0.1051859275789477, "compute_per_batch_s": 0.0411353005789459, "time_to_first_batch_s": 0.10708050300002014, "steady_state": true, "warmup_s_used": 2.644370706000018, "batches": 35, "samples": 832, "batch_size": 32, "main_cpu_s": 0.8000000000000003, "worker_cpu_s": 0, "measured_wall_s": 2.7801033349999784, "epoch_starts": 0, "epoch_windows": false, "startup_fraction": 0.0, "peak_rss_bytes": 236650496, "transport_samples_per_s": 292021.54229730647, "transport_by_workers": {"0": 292021.54229730647, "2": 7770.491332008233}, "transport_reason": "", "ceiling_windows": [1050.5037863738837, 1244.7095831445706, 291.17000217169505, 742.1603787280037, 853.4805402344795], "ceiling_interference_cores": [0.9075902796610069, 0.9335831936493313, 1.4406991713685988, 1.4108662826046068, 1.4669163480533645], "ceiling_samples_per_s": 853.4805402344795, "ceiling_status": "ok", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}, "profile_path": null, "measured_loader": {"loader": "DataLoader", "dataset": "ShardedRemoteImages", "batch_size": 32, "framework": null}, "script_batches": null, "not_applied": "", "ranks": null, "wall_s": 16.320119984999963, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(59,9,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(60,10,'role','"seeded"');
INSERT INTO "trial_user_attributes" VALUES(61,10,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(62,10,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(63,10,'config','{"num_workers": 4, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(64,10,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(65,10,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "applied_config": {"num_workers": 4, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [218.92366515254486, 179.55294055981776, 753.723581451143, 329.9001240261334, 888.2369423593353], "interference_cores": [1.2999177569402285, 1.2343541658608215, 0.9815032531866816, 1.271496034381659, 1.2490282683984302], "samples_per_s": 329.9001240261334, "step_p50_s": 0.035685689999979786, "step_p95_s": 0.19050924900000155, "data_wait_fraction": 0.10443204187141965, "wait_per_batch_s": 0.0072705447692279004, "compute_per_batch_s": 0.06234932130769558, "time_to_first_batch_s": 0.34512425900004473, "steady_state": true, "warmup_s_used": 1.6973612959999969, "batches": 52, "samples": 1376, "batch_size": 32, "main_cpu_s": 1.9900000000000002, "worker_cpu_s": 0.14, "measured_wall_s": 2.7151747770000156, "epoch_starts": 0, "epoch_windows": false, "startup_fraction": 0.0, "peak_rss_bytes": 279010304, "transport_samples_per_s": null, "transport_by_workers": null, "transport_reason": "", "ceiling_windows": [], "ceiling_interference_cores": [], "ceiling_samples_per_s": null, "ceiling_status": "", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}, "profile_path": null, "measured_loader": {"loader": "DataLoader", "dataset": "ShardedRemoteImages", "batch_size": 32, "framework": null}, "script_batches": null, "not_applied": "", "ranks": null, "wall_s": 11.83445309299998, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(66,10,'partial','false');
INSERT INTO "trial_user_attributes" VALUES(67,11,'role','"seeded"');
INSERT INTO "trial_user_attributes" VALUES(68,11,'status','"ok"');
INSERT INTO "trial_user_attributes" VALUES(69,11,'reason','""');
INSERT INTO "trial_user_attributes" VALUES(70,11,'config','{"num_workers": 8, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(71,11,'script_config','{"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}');
INSERT INTO "trial_user_attributes" VALUES(72,11,'result','{"status": "ok", "reason": "", "script_config": {"num_workers": 0, "prefetch_factor": null, "pin_memory": false, "persistent_workers": false, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "applied_config": {"num_workers": 8, "prefetch_factor": 2, "pin_memory": false, "persistent_workers": true, "batch_size": 32, "num_streams": 0, "device": "cpu"}, "windows": [253.02741370164975, 288.26197897237887, 108.01377024351675, 355.5857783712316, 132.65296090286364], "interference_cores": [1.4435728454820134, 1.5912930449460019, 1.665413086980293, 1.3881843647581396, 1.6450273729651512], "samples_per_s": 253.02741370164975, "step_p50_s": 0.11432370199997877, "step_p95_s": 0.37064581599997837, "data_wait_fraction": 0.13989527625841702, "wait_per_batch_s": 0.021139176818174767, "compute_per_batch_s": 0.1299679755000072, "time_to_first_batch_s": 0.5468398200000024, "steady_state": true, "warmup_s_used": 4.964118649999989, "batches": 55, "samples": 1472, "batch_size": 32, "main_cpu_s": 1.29, "worker_cpu_s": 0.16, "measured_wall_s": 3.3243573510000033, "epoch_starts": 0, "epoch_windows": false, "startup_fraction": 0.0, "peak_rss_bytes": 344762026, "transport_samples_per_s": null, "transport_by_workers": null, "transport_reason": "", "ceiling_windows": [], "ceiling_interference_cores": [], "ceiling_samples_per_s": null, "ceiling_status": "", "cpu_count": 2, "gpu": {"device_name": null, "util_mean_pct": null, "util_max_pct": null, "util_samples": null, "util_series": null, "mem_series": null, "mem_used_peak_bytes": null, "max_memory_allocated_bytes": null, "h2d_copy_s": null, "h2d_exposed_s": null, "h2d_hidden_fraction": null, "h2d_batches": null, "num_streams": 0, "notes": ["no CUDA device in this process: GPU fields are null"]}, "profile_path": null, "measured_loader": {"loader": "DataLoader", "dataset": "ShardedRemoteImages", "batch_size": 32, "framework": null}, "script_batches": null, "not_applied": "", "ranks": null, "wall_s": 16.10623029300001, "exit_code": 0}');
INSERT INTO "trial_user_attributes" VALUES(73,11,'partial','false');
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
INSERT INTO "trial_values" VALUES(1,1,0,2.19984748066219708566e+02,'FINITE');
INSERT INTO "trial_values" VALUES(2,2,0,3.94436609964049966943e+03,'FINITE');
INSERT INTO "trial_values" VALUES(3,3,0,4.0928665832012056853e+03,'FINITE');
INSERT INTO "trial_values" VALUES(4,4,0,5.66762917889479194864e+03,'FINITE');
INSERT INTO "trial_values" VALUES(5,6,0,6.70786413159016774426e+02,'FINITE');
INSERT INTO "trial_values" VALUES(6,9,0,2.11728844387185176855e+02,'FINITE');
INSERT INTO "trial_values" VALUES(7,10,0,3.29900124026133426016e+02,'FINITE');
INSERT INTO "trial_values" VALUES(8,11,0,2.53027413701649749109e+02,'FINITE');
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
INSERT INTO "trials" VALUES(1,0,1,'COMPLETE','2026-11-23 17:46:53.552922','2026-11-23 17:46:53.552922');
INSERT INTO "trials" VALUES(2,1,1,'COMPLETE','2026-11-23 17:46:53.683807','2026-11-23 17:47:02.115561');
INSERT INTO "trials" VALUES(3,2,1,'COMPLETE','2026-11-23 17:47:02.184474','2026-11-23 17:47:12.398995');
INSERT INTO "trials" VALUES(4,3,1,'COMPLETE','2026-11-23 17:47:12.608854','2026-11-23 17:47:22.979874');
INSERT INTO "trials" VALUES(5,0,2,'FAIL','2026-11-23 17:47:27.820825','2026-11-23 17:47:27.820825');
INSERT INTO "trials" VALUES(6,0,3,'COMPLETE','2026-11-23 17:47:37.623568','2026-11-23 17:47:37.623568');
INSERT INTO "trials" VALUES(7,1,3,'WAITING',NULL,NULL);
INSERT INTO "trials" VALUES(8,0,4,'FAIL','2026-11-23 17:47:46.685660','2026-11-23 17:47:46.685660');
INSERT INTO "trials" VALUES(9,0,5,'COMPLETE','2026-11-23 17:48:40.566724','2026-11-23 17:48:40.566724');
INSERT INTO "trials" VALUES(10,1,5,'COMPLETE','2026-11-23 17:48:40.924557','2026-11-23 17:48:52.909440');
INSERT INTO "trials" VALUES(11,2,5,'COMPLETE','2026-11-23 17:48:53.037633','2026-11-23 17:49:09.464964');
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
CREATE INDEX ix_autotune_studies_host_id ON autotune_studies (host_id);
CREATE INDEX ix_autotune_studies_script_id ON autotune_studies (script_id);
CREATE INDEX ix_autotune_trials_study_state_number ON autotune_trials (study_id, state, number);
CREATE INDEX ix_autotune_recommendations_lookup ON autotune_recommendations (script_id, host_id, updated_at);
COMMIT;
