"""The Explore page's sections: results and the GPU-lane Gantt."""
