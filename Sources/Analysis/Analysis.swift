// Analysis: the streaming chain detector → IBI cleaning → HRV windows → stress, shared by analyze and run.
