-- Derived from the real ../shared/traces/nsys-multi/h100_2gpu_1s.sqlite (its rows, not
-- hand-written data): the same job as if each of its two processes had run on a node of its own,
-- one Nsight Systems export per node. Run by check_gpu.py on a copy of the file to which it adds
-- the table culprit_node(node, node_rank):
--   * keeps the node-th process that ran kernels (by globalPid) and deletes every row of the
--     other one (kernels, copies, memsets, synchronisations, runtime calls, NVTX ranges);
--   * numbers its GPU 0, each node's first GPU: the two exports' device ids collide, as they do
--     on two real nodes;
--   * names its host "node<node>" (TARGET_INFO_SYSTEM_ENV Hostname);
--   * when node_rank is not NULL, records NODE_RANK=<node_rank> in the launched process's
--     environment, as `nsys profile torchrun --node-rank ...` on that node would hold it.
-- Edits beyond deleting rows: deviceId, Hostname and the NODE_RANK row, nothing else.
CREATE TEMP TABLE kernel_processes AS
  SELECT DISTINCT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY globalPid;
CREATE TEMP TABLE dropped AS
  SELECT globalPid FROM temp.kernel_processes
  WHERE globalPid != (SELECT globalPid FROM temp.kernel_processes ORDER BY globalPid
                      LIMIT 1 OFFSET (SELECT node FROM culprit_node));

DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid IN (SELECT globalPid FROM temp.dropped);
DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE globalPid IN (SELECT globalPid FROM temp.dropped);
DELETE FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE globalPid IN (SELECT globalPid FROM temp.dropped);
DELETE FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION
  WHERE globalPid IN (SELECT globalPid FROM temp.dropped);
DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME
  WHERE (globalTid >> 24) << 24 IN (SELECT globalPid FROM temp.dropped);
DELETE FROM NVTX_EVENTS WHERE (globalTid >> 24) << 24 IN (SELECT globalPid FROM temp.dropped);
DELETE FROM CUPTI_ACTIVITY_KIND_OVERHEAD
  WHERE (globalTid >> 24) << 24 IN (SELECT globalPid FROM temp.dropped);
DELETE FROM ThreadNames WHERE (globalTid >> 24) << 24 IN (SELECT globalPid FROM temp.dropped);
DELETE FROM PROCESSES WHERE globalPid IN (SELECT globalPid FROM temp.dropped);

UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 0;
UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET deviceId = 0;
UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET deviceId = 0;
UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET deviceId = 0;
UPDATE TARGET_INFO_SYSTEM_ENV SET value = 'node' || (SELECT node FROM culprit_node)
  WHERE name = 'Hostname';
INSERT INTO META_DATA_CAPTURE (name, value)
  SELECT 'PROCESS_0:ENVIRONMENT_VARIABLE', 'NODE_RANK="' || node_rank || '"' FROM culprit_node
  WHERE node_rank IS NOT NULL;
DROP TABLE culprit_node;
