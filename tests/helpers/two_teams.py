"""Two teams on one node, the command line's hand-made scenario with queues (tests/test_queues_cli.py,
tests/test_report_gantt_queues.py).

One node of 8 GPUs. A and B have quota 4. a1, a2 (A) take the node at 0; b1 (B, BE) reclaims a2
at 10 (k8s reprieves a1, the longest running, first; ties by rank), a2 releases at 40 and b1
starts; t1 (B, TE, 2) at 20 is not within quota once b1 is nominated (4 + 2 > 4): it takes its
own team's b1 at 40 (TE first), which released at 70.
"""

WORKLOAD = """job_id,submit_time,duration,cpu,mem_gb,gpu,job_class,queue
a1,0,1000,4,4,4,BE,A
a2,0,1000,4,4,4,BE,A
b1,10,100,4,4,4,BE,B
t1,20,50,2,2,2,TE,B
"""
QUEUES = "queue,gpu,borrow_limit,weight\nA,4,,1\nB,4,,1\n"
NODE = ["--nodes", "1", "--node-cpu", "8", "--node-mem-gb", "8", "--node-gpu", "8"]
